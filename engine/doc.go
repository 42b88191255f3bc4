// Package engine is gpumemrepl's memory model of PyTorch, a Go API: a
// Session makes tensors and their storages (shared by views, freed when
// the last reference goes), runs ops, autograd and optimizers as
// PyTorch allocates for them, puts device storages in the caching
// allocator and host storages in real memory of this process, and
// measures what each step did. Names and other Python values are the
// front end's business (torchpy).
//
// The package is one flat package, as go/types is; this comment is its
// map, by layer from the ground up. The core (session.go) names no op
// family: what a family keeps in a session is a type of the family's
// own, and the Session holds them all as one field it does not read
// (families.go).
//
// # Core
//
//   - tensor.go: DType, storage (bytes on a device, shared by views) and
//     Tensor (a view of a storage: shape, strides, offset); complex.go:
//     complex dtypes' views (view_as_complex, view_as_real) and polar,
//     estimated.
//   - session.go: Session, Options and the GPU presets; taking and
//     releasing storages, copies between devices.
//   - families.go: the families' state a Session holds (autocast's,
//     checkpointing's, the convolution table, cuBLAS's workspaces, ...)
//     and the two hooks of the core a family needs (the session's start,
//     each new storage).
//   - gpu.go: the backend under each CUDA index (the simulated device or
//     a real one) and what a GPU is made of (preset, properties.go);
//     driverevents.go: what the program does that makes the CUDA driver
//     take address space for itself (the first kernel, cuBLAS handles,
//     the first reduction, a library mapped, cuDNN's first handle), told
//     to the device.
//   - hostmem.go, hostbudget.go, pinned.go: host tensors' memory
//     (mmap'd, so RSS moves; counted, not allocated, past the host
//     budget) and the caching host allocator of pinned memory.
//   - streams.go: CUDA streams and events as the caching allocator sees
//     them.
//   - api.go, measure.go, peaks.go, load.go, replaysetup.go,
//     typename.go: the Go API the REPL and the binding call: figures
//     after a step, lifetime peaks, a device's history, a loaded trace.
//   - meta.go: the meta device (shapes and dtypes, no memory).
//   - defaults.go: the default dtype and device factories and modules
//     take (torch.set_default_dtype, set_default_device, torch.device
//     blocks).
//   - serialization.go: checkpoints torch.save wrote, read without
//     their tensors' data, and their tensors made where torch.load puts
//     them; serialization_save.go and ziprecords.go: torch.save's file,
//     as PyTorch's writer lays it out.
//   - holdings.go: what a device holds at its peak or now, each block in
//     one category (parameters, gradients, optimizer state, saved
//     activations, ...), named by the front end; each step's peak.
//   - knownvalues.go, print.go, arith_values.go, op_values.go: the
//     values the tool knows of a tensor (constants, ranges, small
//     results), and printing.
//   - layout.go: the layout an elementwise op's output takes.
//   - tiers.go: exact and estimated figures: an op with no recorded
//     rule calls Session.estimate, which records an Estimate (the op, its
//     shapes, why) and lets it go on by a general rule, or under
//     Options.Strict returns the op's refusal; Tier says whether the
//     session's figures are exact or rest on its first estimate;
//     recording(rec) says, in an estimate's cause, where a rule modelled
//     from PyTorch's formulas stands (rec the rule script that recorded
//     it, "" for none yet).
//   - cards.go: the rules that read the GPU (the cuBLAS workspace, a
//     reduction's blocks, CUB's and cuDNN's scratch, the attention
//     backend, where the memory runs out), recorded on the GH100 (the
//     H200 and the H100): on any other card each is an estimate naming
//     it.
//   - general.go with opfacts.tsv: the general rule, entries for the
//     ops PyTorch declares and the table lacks (unary, binary, scan,
//     random, fill families), from facts scripts/gen_opfacts.py writes
//     from native_functions.yaml and derivatives.yaml; every run an
//     estimate. Options.ForceGeneral runs recorded ops by it, to
//     measure it.
//   - errors.go: Error, the engine's error, whose ErrorKind is the
//     Python class PyTorch raises at that check
//     (Errorf(IndexError, ...)); torchpy's pyClasses turns a kind into
//     its class, and no error's text is read back.
//
// # Graph
//
//   - autograd.go: nodes, what each saves, the backward pass.
//   - gradapi.go, gradnode.go, gradset.go: backward(gradient),
//     torch.autograd.grad, grad_fn as Python sees it, t.grad = g.
//   - gradstreams.go: backward across CUDA streams.
//   - customfn.go: custom autograd Functions (torch.autograd.Function):
//     the node of a call, what its context keeps, ctx.saved_tensors.
//   - savedhooks.go: saved-tensor hooks (saved_tensors_hooks,
//     save_on_cpu): what a node keeps when a hook packs what it saves.
//
// # The op table
//
//   - optable.go: OpDef (names, PyTorch's signature as Params, a
//     one-line memory rule, the run), Args, declare, OpList (the table by
//     name: help's order) and Session.Run, through which every entry
//     runs.
//   - autocast.go: the wrapper Run puts around every entry: under
//     torch.autocast, the arguments cast by the op's policy.
//   - testdata/ops.golden: the whole table, one entry a paragraph, in
//     OpList's order (TestOpsGolden; -update rewrites it).
//
// # Rules by family
//
// Each family's file declares its entries in an init beside the rule
// they run.
//
//   - One-input math: unary.go (relu, exp, pow, floor, ..., and their
//     in-place forms), activations.go (hardtanh, relu6, hardswish,
//     hardsigmoid; estimated), select.go (softmax, log_softmax, clamp, where,
//     masked_fill), random_fill.go, closeness.go (isclose, allclose;
//     isfinite, isinf, isnan, estimated).
//   - Two operands: ops.go (add, sub, mul, remainder, comparisons;
//     broadcasting), divide.go, boolops.go, inplace.go (add_, zero_,
//     fill_, copy_: writes into a tensor).
//   - Products: ops.go (matmul, mm, linear, the cuBLAS workspace),
//     matmul_nd.go, bmm_cublas.go (bmm, baddbmm), addmm.go, einsum.go,
//     einsum_pair.go, einsum_path.go.
//   - Views and copies: strides.go (unsqueeze, squeeze, permute, narrow,
//     select), views.go (view, reshape, t, expand, cat, stack), split.go,
//     tocopy.go (to), deepcopy.go, aliases.go (other names of ops: clip,
//     absolute, divide, swapaxes, concat; expand_as, view_as, type_as,
//     unflatten, movedim, broadcast_to; new_zeros and the other new_*;
//     clamp_min, clamp_max), reorder.go (flip, roll; estimated).
//   - Sampling: multinomial.go (torch.multinomial; the host's
//     estimated).
//   - Factories: factories.go (zeros, ones, empty, full, rand, arange,
//     the *_like forms, eye, linspace, randint, tril, triu; F.one_hot);
//     sampling.go (randperm; another dtype than int64 estimated).
//   - Reductions and selections: reduce.go (with amax and amin,
//     estimated), reduce_dims.go (along several dimensions;
//     std and var's correction, norm's p), reduce_outer.go, unique.go
//     (unique, unique_consecutive; values not known, other dtypes than
//     int64, float32 and int32, estimated), diag.go (trace, diag;
//     estimated), selectk.go, cumprod.go (cumprod and its backward;
//     estimated), sort.go, topk.go, radixsort.go, quantile.go
//     (PyTorch's composite; linear along a dimension recorded).
//   - Indexing: advindex.go, indexcheck.go, indexops.go, masks.go,
//     maskgrad.go.
//   - Resampling: resample.go (F.pad, F.interpolate), repeat.go (repeat,
//     tile, repeat_interleave; by counts other than int64 and int32
//     ones on the GPU, or with output_size, estimated).
//   - Layers: conv.go with convtable.go, convparse.go and convtable/
//     (the recorded convolutions), convestimate.go (the others, from
//     the nearest recorded one), convgrad.go (a backward whose incoming
//     gradient is strided) and calibration.go (the user's own
//     recordings), batchnorm.go, batchnorm_group.go, pool.go,
//     norm_layer.go, weightnorm.go (nn.utils.weight_norm's ops;
//     estimated), embedding.go, embedding_bag.go (torch.embedding_bag;
//     estimated), dropout.go, attention.go,
//     attention_math.go, mha.go, encoder.go, loss.go, loss_nll.go,
//     loss_ctc.go, nn.go
//     and module.go (parameters, a module's conversions).
//   - Recurrent layers: rnn.go (torch.lstm, gru, rnn_tanh, rnn_relu and
//     _cudnn_rnn_flatten_weight on cuDNN, under autocast too),
//     rnn_cudnn.go (cuDNN's weight space, workspace, reserve space and
//     dropout state), rnn_table.go (the recorded workspaces and reserve
//     spaces, testdata/rnn), rnn_cells.go (the LSTM and GRU cells'
//     fused kernels), rnn_pack.go (packed sequences).
//   - Training: optim.go, optim_adam.go, optim_sgd.go, optim_rmsprop.go
//     (estimated), clipgrad.go,
//     amp_scaler.go (GradScaler), checkpoint.go and
//     checkpoint_reentrant.go (activation checkpointing).
//   - Printing a CUDA tensor: print_temps.go.
//
// # Adding an op
//
//  1. Record what PyTorch does: a rule script testdata/pyrules/ops_FAMILY.py
//     run on the GPU machine with scripts/record_script.py --events (the
//     manual's "Adding an op" says how to make its figures tell).
//  2. Declare one OpDef in an init of the family's file, beside the rule
//     (calling s.estimate with recording(SCRIPT) in its cause until the
//     rule is held to its rule script's recording, "" while the script
//     waits for the GPU in testdata/pyrules_pending; an op whose rule
//     covers some arguments and not others calls it for those alone,
//     naming why):
//     its names (Function for torch.NAME, Method for Tensor.NAME,
//     functional() for F.NAME only, InPlace, Dunders), its Params with
//     PyTorch's defaults, its Memory line, and run (or runTuple, inPlace),
//     usually a family helper: unary("exp", "ExpBackward0", saveResult, 1).
//     An op that returns its input itself returns a.Tensor(0), not a new
//     reference. It fails as PyTorch does, with PyTorch's words and class:
//     Errorf(ValueError, ...) (errors.go); NotModelledError for what the
//     tool does not model.
//  3. go test ./engine -run TestOpsGolden -update, and read the diff of
//     testdata/ops.golden: the new entry, nothing else.
//  4. Run the rule script through the binary (gpumemrepl run) until it
//     matches the recording at every statement, then add it to
//     testdata/python_passing.txt. torch, Tensor, F, help torch and
//     completion read the entry; nothing else is written by hand, but
//     for an op PyTorch's argument parser takes in several signatures
//     (to(dtype), to(other)): an overload in torchpy/overloads.go
//     rewrites them into the entry's. Autocast's policies name ops by
//     their table names (autocast.go).
package engine
