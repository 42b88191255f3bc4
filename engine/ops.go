package engine

import (
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// Tensor operations, as memory: each allocates its output (values are not
// computed), records what PyTorch saves for its backward, and allocates
// what PyTorch's kernels and libraries allocate through the caching
// allocator. The rules:
//
//   - A matrix product (matmul, @, and nn.Linear) allocates its output,
//     then, on the first product of a device from a thread, the cuBLAS
//     workspace of that (thread, stream): PyTorch's default
//     CUBLAS_WORKSPACE_CONFIG, :4096:8 (32 MiB) on compute capability 9
//     and above, :4096:2:16:8 (8,519,680 bytes) below. backward() runs on
//     the autograd engine's thread, which gets a workspace of its own.
//   - nn.Linear with a bias is addmm, which goes through cuBLASLt when
//     neither of the weight's dimensions is 1 (PyTorch's own condition:
//     cuBLASLt's heuristics fail when mat2 has one row or column): its
//     first call also allocates the 1 MiB cuBLASLt workspace. Measured
//     (testdata/pyrules/linear_device.py): Linear(1, 1) does not, and
//     Linear(64, 32) does, on one row of input as on eight.
//   - matmul of a batch of matrices (3-D and up) by a matrix folds the
//     batch into the rows of one mm, a view (no copy); matrix @ vector is
//     mv. Both allocate the output and the forward workspace.
//   - A product in backward whose incoming gradient is a broadcast view
//     (from sum) first copies it into a dense temporary, freed after.
//     mm's backward makes mat2's gradient before self's; addmm's makes
//     mat1's, mat2's, then the bias's; mv's makes the matrix's, an outer
//     product of the gradient and the vector (elementwise: no workspace,
//     no copy), then the vector's (testdata/pyrules/products.py and
//     products_mv_bmm.py).

// matmul and mm as table entries.
func init() {
	tensors := []Param{input, {Name: "other", Kind: TensorParam}}
	declare(
		&OpDef{Name: "matmul", Function: true, Method: true, Dunders: operators("matmul"), Params: tensors,
			Memory: "new tensor: mm, mv, a batch folded into one mm (a dense copy where its strides allow no view), or a bmm over both batches broadcast, each reshaped to 3-d (a copy where not a view); the cuBLAS workspace on first use; saves each factor the other's gradient needs",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.matmul(a.Tensor(0), a.Tensor(1), "") }},
		&OpDef{Name: "mm", Function: true, Method: true, Params: tensors,
			Memory: "new tensor; the cuBLAS workspace on first use; saves each factor the other's gradient needs",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				if len(x.Shape) != 2 || len(y.Shape) != 2 {
					return nil, Errorf(RuntimeError, "self must be a matrix")
				}
				return s.matmul(x, y, "")
			}},
	)
}

// The binary ops as table entries: add, sub and mul, remainder,
// floor_divide and fmod, the comparisons.
func init() {
	declare(
		arith("add", "new tensor of the broadcast shape; saves nothing", alpha),
		arith("sub", "new tensor of the broadcast shape; saves nothing; backward negates other's gradient (a new tensor)", alpha),
		arith("mul", "new tensor of the broadcast shape; saves each operand the other's gradient needs"),
	)
	for _, name := range []string{"remainder", "floor_divide", "fmod"} {
		var dunders []Dunder
		if d := map[string]string{"remainder": "mod", "floor_divide": "floordiv"}[name]; d != "" {
			dunders = operators(d)
		}
		declare(&OpDef{Name: name, Function: true, Method: true, Dunders: dunders,
			Params: []Param{input, other},
			Memory: map[string]string{
				"remainder":    "new tensor of the broadcast shape; saves nothing; by a number, backward passes the gradient on (by a tensor that requires grad: not modelled)",
				"floor_divide": "new tensor of the broadcast shape (integral inputs stay integral); its backward is not modelled",
				"fmod":         "new tensor of the broadcast shape; its backward is not modelled",
			}[name],
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				if x.number && y.number {
					return nil, Errorf(TypeError, "a number %s a number is not a tensor", name)
				}
				if s.gradEnabled && (y.requiresGrad() || name != "remainder" && x.requiresGrad()) {
					return nil, NotModelledError("the backward of torch." + name + " other than a tensor's remainder by a number")
				}
				return s.binary(name, x, y)
			}})
	}
	for _, name := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
		declare(&OpDef{Name: name, Function: true, Method: true, Dunders: []Dunder{{Name: "__" + name + "__"}}, Params: []Param{input, other},
			Memory: "new bool tensor of the broadcast shape; not recorded by autograd",
			run: func(s *Session, a Args) (*Tensor, error) {
				if a.Tensor(0).number && a.Tensor(1).number {
					return nil, Errorf(TypeError, "a number compared with a number is not a tensor")
				}
				out, err := s.compare(a.Tensor(0), a.Tensor(1))
				if err == nil {
					out.st.vals = compareValues(name, a.Tensor(0), a.Tensor(1), out)
				}
				return out, err
			}})
	}
}

// arith is the entry of add, sub or mul (extra: their keyword-only
// parameters): torch.name, Tensor.name, the operators, the in-place
// forms.
func arith(name, memory string, extra ...Param) *OpDef {
	return &OpDef{Name: name, Function: true, Method: true, Dunders: operators(name),
		InPlace: name + "_", InPlaceDunders: []string{"__i" + name + "__"},
		Params: append([]Param{input, other}, extra...), Memory: memory,
		run: func(s *Session, a Args) (*Tensor, error) {
			x, y := a.Tensor(0), a.Tensor(1)
			if x.number && y.number {
				return nil, Errorf(TypeError, "a number %s a number is not a tensor", name)
			}
			return s.binary(name, x, y)
		},
		inPlace: inPlaceArith(name)}
}

// cublasWorkspace is the cuBLAS workspace PyTorch allocates per handle
// and stream for a device of compute capability major: 32 MiB from sm90
// (recorded on the H200), else CUBLAS_WORKSPACE_CONFIG's default
// :4096:2:16:8 (PyTorch's CublasHandlePool.cpp, not recorded).
func cublasWorkspace(major int) uint64 {
	if major >= 9 {
		return 4096 << 10 * 8
	}
	return 4096<<10*2 + 16<<10*8
}

// cublasLtWorkspace is the cuBLASLt workspace (CUBLASLT_WORKSPACE_SIZE's
// default, 1024 KiB; measured on the H200). PyTorch's source sizes it
// alike on every CUDA card (CublasHandlePool.cpp), so it is not one of
// the rules that read the card (cards.go).
const cublasLtWorkspace = 1 << 20

// workspaceKey names one library workspace: device, stream, thread,
// library.
type workspaceKey struct {
	device   int
	stream   uint64
	autograd bool // allocated from backward's thread
	lt       bool // cuBLASLt rather than cuBLAS
}

// workspace allocates a library workspace on first use; it stays
// allocated for the rest of the session, as the library keeps it.
func (s *Session) workspace(dev Device, lt bool) error {
	if !dev.CUDA {
		return nil
	}
	key := workspaceKey{dev.Index, s.currentStream(dev), s.inBackward, lt}
	if _, ok := s.workspaces[key]; ok {
		return nil
	}
	if s.workspaces == nil {
		s.workspaces = map[workspaceKey]*storage{}
	}
	size := uint64(cublasLtWorkspace)
	if !lt {
		size = cublasWorkspace(s.gpus[dev.Index].b.computeMajor())
		if err := s.onCard(dev, "cuBLAS", "its workspace of %s is PyTorch's default for the compute capability (CublasHandlePool.cpp: :4096:2:16:8 below sm90, 32 MiB from it), recorded only on the GH100 (sm90)", allocator.FormatSize(size)); err != nil {
			return err
		}
	}
	if !s.blasHandle(key) {
		s.driverEvent(dev, device.BLASHandle)
	}
	st, err := s.newStorage(dev, size, false)
	if err != nil {
		return err
	}
	st.role = roleWorkspace
	s.workspaces[key] = st
	s.kernelRan() // the product's, which comes after its workspace
	what := "cuBLAS"
	if lt {
		what = "cuBLASLt"
	}
	s.event("%s workspace on %s: %s, kept", what, dev, allocator.FormatSize(size))
	return nil
}

// blasHandle reports whether the thread of key has its cuBLAS handle on
// key's device: a workspace of it made before, on any stream.
func (s *Session) blasHandle(key workspaceKey) bool {
	for k := range s.workspaces {
		if k.device == key.device && k.autograd == key.autograd {
			return true
		}
	}
	return false
}

// sameDevice checks that the tensor operands of an op share a device.
func sameDevice(ts ...*Tensor) (Device, error) {
	var dev *Device
	for _, t := range ts {
		if t == nil || t.number {
			continue
		}
		d := t.Device()
		if dev != nil && *dev != d {
			return d, Errorf(RuntimeError, "Expected all tensors to be on the same device, but found at least two devices, %s and %s!", *dev, d)
		}
		dev = &d
	}
	if dev == nil {
		return CPU, nil
	}
	return *dev, nil
}

// elementwiseDevice is sameDevice for the operands of an elementwise
// op, where a 0-d host tensor beside a CUDA one is allowed: PyTorch's
// TensorIterator reads it as a scalar argument of the kernel (no copy,
// no device memory), as YOLO's anchors * self.stride[i] does.
func elementwiseDevice(ts ...*Tensor) (Device, error) {
	cuda := slices.ContainsFunc(ts, func(t *Tensor) bool { return t != nil && !t.number && t.Device().CUDA })
	kept := ts
	if cuda {
		kept = slices.DeleteFunc(slices.Clone(ts), func(t *Tensor) bool {
			return t != nil && !t.number && !t.Device().CUDA && len(t.Shape) == 0
		})
	}
	return sameDevice(kept...)
}

func init() {
	declare(functional(&OpDef{Name: "linear", Params: []Param{input, {Name: "weight", Kind: TensorParam}, optTensor("bias")},
		Memory: "x @ weight.t() (+ bias): addmm with a bias, mm without, the weight's transpose a view; an input of 3 or more dimensions folded into rows (a view; a dense copy when not contiguous, the bias then added in place); the cuBLAS workspace on first use (cuBLASLt's too with a bias, unless a weight dimension is 1); saves what each gradient needs",
		run:    func(s *Session, a Args) (*Tensor, error) { return s.linear(a.Tensor(0), a.Tensor(1), a.Tensor(2)) }}))
}

// Linear is F.linear(x, w, b), nn.Linear's forward: x @ w.t() (+ b),
// addmm with a bias, mm without (b nil); under torch.autocast, of its
// arguments cast to the region's dtype (autocast.go).
func (s *Session) Linear(x, w, b *Tensor) (*Tensor, error) {
	return s.Run(Ops["linear"], Args{x, w, b})
}

func (s *Session) linear(x, w, b *Tensor) (*Tensor, error) {
	if len(x.Shape) == 0 || x.Shape[len(x.Shape)-1] != w.Shape[1] {
		return nil, shapeError(x.Shape, []int64{w.Shape[1], w.Shape[0]})
	}
	dev, err := sameDevice(x, w, b)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) > 2 {
		if !x.IsContiguous() {
			return s.stridedLinear(x, w, b)
		}
		return s.foldedLinear(x, w, b)
	}
	// x @ w.t(): the weight's transpose (TBackward0) comes first
	wt := s.Transpose(w, 0, 1)
	s.recordPermute("TBackward0", wt, w, swapped(2, 0, 1))
	defer s.dropTensor(wt)
	// the weight's transpose gets mm's gradient laid out by columns
	name, inputs := "MmBackward0", []*Tensor{x, wt}
	if b != nil { // addmm(bias, x, w.t()): the bias is its first input
		name, inputs = "AddmmBackward0", []*Tensor{b, x, wt}
	}
	save := savedForProduct(x, wt)
	defer s.prepack(name, inputs, productPackOrder(save))()
	if b == nil {
		// MmBackward0 declares its saved tensors by name, mat2 before
		// self: it unpacks (saved_hooks.py) and releases them so
		save = productPackOrder(save)
	}
	shape := append(slices.Clone(x.Shape[:len(x.Shape)-1]), w.Shape[0])
	out, err := s.alloc(shape, x.DType, dev)
	if err != nil {
		return nil, err
	}
	err = s.workspace(dev, false)
	if err == nil && b != nil && w.Shape[0] > 1 && w.Shape[1] > 1 {
		err = s.workspace(dev, true)
	}
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	s.record(name, out, inputs, save, productBackward(x.Shape, wt.Shape, b == nil, false, true))
	return out, nil
}

// foldedLinear is F.linear of a contiguous input of 3 or more
// dimensions: its rows folded into a matrix (a view), the product, and
// that viewed back. Both views are autograd nodes: backward reshapes the
// output's gradient, a copy when it is not laid out densely
// (mha_cross.py: a key's gradient from bmm through the heads' views).
func (s *Session) foldedLinear(x, w, b *Tensor) (*Tensor, error) {
	n := len(x.Shape)
	folded, err := s.View(x, []int64{int64(x.Numel()) / x.Shape[n-1], x.Shape[n-1]})
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(folded)
	out, err := s.linear(folded, w, b)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(out)
	return s.View(out, append(slices.Clone(x.Shape[:n-1]), w.Shape[0]))
}

// stridedLinear is F.linear of an input of 3 or more dimensions that is
// not contiguous (a transposed batch_first input): matmul(x, w.t()), its
// rows folded into one mm by a reshape, which copies x, under autograd
// with a weight that requires grad and without autograd (mha_self.py,
// mha_fast.py, mha_bf16.py), then the bias added in place (AddBackward0,
// whose backward sums the bias's gradient).
func (s *Session) stridedLinear(x, w, b *Tensor) (*Tensor, error) {
	rows := int64(x.Numel()) / x.Shape[len(x.Shape)-1]
	if _, ok := viewStrides(x.Shape, x.Strides(), []int64{rows, w.Shape[1]}); ok || s.gradEnabled && !w.requiresGrad() {
		return nil, NotModelledError("F.linear of a strided input whose rows fold without a copy, or under autograd with a weight that requires no grad")
	}
	folded, err := s.Reshape(x, []int64{rows, w.Shape[1]})
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(folded)
	wt, err := s.Permute(w, []int64{1, 0}) // w.t(), recorded
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(wt)
	mm, err := s.matmul(folded, wt, "")
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(mm)
	out, err := s.View(mm, append(slices.Clone(x.Shape[:len(x.Shape)-1]), w.Shape[0]))
	if err != nil || b == nil {
		return out, err
	}
	if err := inPlaceArith("add")(s, Args{out, b}); err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// savedForProduct is what a matrix product saves: each factor when the
// other requires grad.
func savedForProduct(a, b *Tensor) []*Tensor {
	var save []*Tensor
	if b.requiresGrad() {
		save = append(save, a)
	}
	if a.requiresGrad() {
		save = append(save, b)
	}
	return save
}

// productPackOrder is the order in which PyTorch saves a product's
// factors (savedForProduct's): mat2 first, as derivatives.yaml's mm and
// addmm name it first (in mat1's formula).
func productPackOrder(save []*Tensor) []*Tensor {
	r := slices.Clone(save)
	slices.Reverse(r)
	return r
}

// productBackward is the backward of a product whose inputs have shapes
// a and b (and maybe a bias, its first input): a gradient of each
// factor's shape, each one matrix product, b's first when mat2First
// (mm), else a's; the bias's
// gradient is the incoming one, summed to its shape. A factor laid out
// by columns (a transposed matrix) gets its gradient laid out so too, as
// mm's backward computes it (grad.t().mm(mat1).t()).
func productBackward(a, b []int64, mat2First bool, byColumns ...bool) backward {
	order := []int{0, 1}
	if mat2First {
		order = []int{1, 0}
	}
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, len(n.inputs))
		shapes := [][]int64{a, b}
		bias := len(n.inputs) - 2 // addmm's bias comes before the factors
		for _, i := range order {
			shape := shapes[i]
			if n.inputs[bias+i].to == nil {
				continue
			}
			r, err := s.productGrad(g, shape)
			if err != nil {
				return grads, err
			}
			if i < len(byColumns) && byColumns[i] {
				r.strides = []int64{1, shape[0]}
				r.strided = !contiguous(shape, r.strides)
				r.view = true
			}
			grads[bias+i] = r
		}
		if bias == 1 && n.inputs[0].to != nil {
			grads[0] = share(g)
		}
		return grads, nil
	}
}

// viewGrads is bw with the gradients of the inputs marked in views made
// views, as PyTorch's backward makes them.
func viewGrads(bw backward, views ...bool) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads, err := bw(s, n, g)
		for i, v := range views {
			if v && i < len(grads) && grads[i] != nil {
				grads[i].view = true
			}
		}
		return grads, err
	}
}

// columnMajor reports whether t is a matrix laid out by columns (a
// contiguous matrix transposed).
func columnMajor(t *Tensor) bool {
	st := t.Strides()
	return len(t.Shape) == 2 && st[0] == 1 && st[1] == t.Shape[0]
}

// productGrad is one matrix product of backward taking g: its output, a
// dense copy of g when g is a broadcast view, then the workspace.
func (s *Session) productGrad(g *Tensor, shape []int64) (*Tensor, error) {
	out, err := s.alloc(shape, g.DType, g.Device())
	if err != nil {
		return nil, err
	}
	var tmp *Tensor
	if g.expanded {
		if tmp, err = s.alloc(g.Shape, g.DType, g.Device()); err != nil {
			s.dropTensor(out)
			return nil, err
		}
	}
	err = s.workspace(g.Device(), false)
	if tmp != nil {
		s.dropTensor(tmp)
	}
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// matmul is a @ b: of two matrices (mm), of a batch of matrices by a
// matrix (folded into one mm), of a matrix by a vector (mv), of a vector
// by a matrix (an mm of one row, squeezed), or of two batches of
// matrices (bmm: testdata/pyrules/ops_products.py). node, when set, is
// the autograd node's name (torch.bmm's).
func (s *Session) matmul(a, b *Tensor, node string) (*Tensor, error) {
	ra, rb := len(a.Shape), len(b.Shape)
	if node == "" && min(ra, rb) >= 1 && max(ra, rb) >= 3 {
		if out, err, ok := s.matmulBatched(a, b); ok {
			return out, err
		}
	}
	var shape []int64
	name := "MmBackward0"
	switch {
	case ra >= 2 && rb == 2 && a.Shape[ra-1] == b.Shape[0]:
		shape = append(slices.Clone(a.Shape[:ra-1]), b.Shape[1])
		if ra > 2 {
			name = "UnsafeViewBackward0" // the mm's output, viewed back to the batch's shape
		}
	case ra == 2 && rb == 1 && a.Shape[1] == b.Shape[0]:
		shape, name = []int64{a.Shape[0]}, "MvBackward0"
	case ra == 1 && rb == 2 && a.Shape[0] == b.Shape[0]:
		shape, name = []int64{b.Shape[1]}, "SqueezeBackward4"
	case ra == 3 && rb == 3 && a.Shape[0] == b.Shape[0] && a.Shape[2] == b.Shape[1] && (a.IsContiguous() && b.IsContiguous() || node != "" && cublasBatch(a) && cublasBatch(b)):
		shape, name = []int64{a.Shape[0], a.Shape[1], b.Shape[2]}, "UnsafeViewBackward0"
	case ra >= 2 && rb >= 2 && a.Shape[ra-1] == b.Shape[rb-2]:
		return nil, NotModelledError("a batched matrix product of other than two contiguous 3-d tensors of one batch size")
	case ra >= 1 && rb >= 1 && (ra < 2 || rb < 2) && a.Shape[ra-1] == b.Shape[max(rb-2, 0)]:
		return nil, NotModelledError("a product of two vectors (dot)")
	default:
		return nil, shapeError(a.Shape, b.Shape)
	}
	if node != "" {
		name = node
	}
	dev, err := sameDevice(a, b)
	if err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, a.DType, dev)
	if err != nil {
		return nil, err
	}
	if err := s.workspace(dev, false); err != nil {
		s.dropTensor(out)
		return nil, err
	}
	// a batch folded into one mm, a vector made a row, and both batches
	// of a bmm come through views (reshape, unsqueeze, expand), so
	// their gradients are views
	bw := viewGrads(productBackward(a.Shape, b.Shape, true, columnMajor(a), columnMajor(b)), ra != 2, ra == 3 && rb == 3)
	if rb == 1 {
		bw = outerBackward
	}
	saved := savedForProduct(a, b)
	if rb != 1 && name != "BaddbmmBackward0" && len(saved) == 2 {
		// autograd releases a node's saved inputs in the order of their
		// names: mm's and bmm's mat2, then self; baddbmm's batch1, then
		// batch2 (mha_self.py, mha_masks.py, mha_bf16.py)
		saved[0], saved[1] = saved[1], saved[0]
	}
	s.record(name, out, []*Tensor{a, b}, saved, bw)
	return out, nil
}

// cublasBatch reports whether bmm hands a 3-d operand to cuBLAS as it
// is, without a contiguous copy: each matrix laid out by rows or by
// columns, its leading dimension at least as long as a row or column.
func cublasBatch(t *Tensor) bool {
	if t.expanded {
		return false
	}
	st := t.Strides()
	return st[2] == 1 && st[1] >= max(1, t.Shape[2]) || st[1] == 1 && st[2] >= max(1, t.Shape[1])
}

// outerBackward is mv's backward: the matrix's gradient, grad.outer(vec),
// one new tensor made elementwise; then the vector's, self.t().mv(grad),
// a product.
func outerBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, 2)
	var err error
	if n.inputs[0].to != nil {
		if grads[0], err = s.alloc(n.inputs[0].shape, g.DType, g.Device()); err != nil {
			return grads, err
		}
	}
	if n.inputs[1].to != nil {
		grads[1], err = s.productGrad(g, n.inputs[1].shape)
	}
	return grads, err
}

// likeInput is the backward of a one-input elementwise op: the input's
// gradient, after temps-1 temporaries of its size that are then freed
// (newest first).
func likeInput(temps int) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		var ts []*Tensor
		for range temps {
			t, err := s.alloc(n.inputs[0].shape, g.DType, g.Device())
			if err != nil {
				for _, t := range ts {
					s.dropTensor(t)
				}
				return []*Tensor{nil}, err
			}
			ts = append(ts, t)
		}
		for i := len(ts) - 2; i >= 0; i-- {
			s.dropTensor(ts[i])
		}
		return []*Tensor{ts[len(ts)-1]}, nil
	}
}

// binary runs a + b, a - b, a * b or a / b, broadcasting; either may be
// a number (for division, the divisor only: divide.go has the rest).
func (s *Session) binary(op string, a, b *Tensor) (*Tensor, error) {
	dev, shape, err := operands(a, b)
	if err != nil {
		return nil, err
	}
	dt := promoted(a, b)
	if op == "div" {
		dt = quotientType(a, b)
	}
	out, err := s.alloc(shape, dt, dev)
	if err != nil {
		return nil, err
	}
	layOut(out, a, b)
	out.st.vals = binaryValues(op, a, b, out)
	switch op {
	case "add":
		s.record("AddBackward0", out, []*Tensor{tensorOrNil(a), tensorOrNil(b)}, nil, passGrad)
		return out, nil
	// Python's bindings leave out sub.Scalar and div.Scalar (torchgen's
	// SKIP_PYTHON_BINDINGS_SIGNATURES): x - 1 and x / 2 wrap the number
	// and run the Tensor overloads, whose nodes are SubBackward0 and
	// DivBackward0 (recorded so: ops_scalar_nodes.py, ops_census_misc.py,
	// ops_inplace.py); 1 - x is rsub.Scalar's.
	case "sub": // self's gradient is the incoming one, other's its negation
		name := "SubBackward0"
		if a.number {
			name = "RsubBackward1"
		}
		s.record(name, out, []*Tensor{tensorOrNil(a), tensorOrNil(b)}, nil, subBackward)
		return out, nil
	case "div": // by a number: the gradient divided by it, a new tensor
		s.record("DivBackward0", out, []*Tensor{tensorOrNil(a), nil}, nil, mulBackward)
		return out, nil
	case "remainder": // self's gradient is the incoming one
		s.record("RemainderBackward0", out, []*Tensor{tensorOrNil(a), nil}, nil, passGrad)
		return out, nil
	case "floor_divide", "trunc_divide", "fmod":
		return out, nil
	}
	var save []*Tensor
	if b.requiresGrad() && !a.number {
		save = append(save, a)
	}
	if a.requiresGrad() && !b.number {
		save = append(save, b)
	}
	if a.number || b.number {
		// the number is saved as a 0-d host tensor: no memory, but a
		// second backward through the node fails once it is freed
		save = append(save, &Tensor{DType: Float32, st: &storage{}, number: true}) // a wrapped number: saved-tensor hooks skip it
	}
	s.record("MulBackward0", out, []*Tensor{tensorOrNil(a), tensorOrNil(b)}, save, mulGrads(a, b))
	if n := out.fn; n != nil && len(n.saved) == 2 {
		// both factors saved: backward releases other_ before self_
		// (llama_train.py's SwiGLU product, whose factors PyTorch frees
		// w3's first: testdata/segments/h100/llama_train.jsonl)
		n.namesReversed = true
	}
	return out, nil
}

// compare is a == b (!=, <, <=, >, >=): a new bool tensor of the
// broadcast shape, outside autograd (testdata/pyrules/setitem_compare.py).
func (s *Session) compare(a, b *Tensor) (*Tensor, error) {
	dev, shape, err := operands(a, b)
	if err != nil {
		return nil, err
	}
	return s.alloc(shape, boolDType, dev)
}

// operands checks the two operands of an elementwise op: their device,
// and the shape they broadcast to.
func operands(a, b *Tensor) (Device, []int64, error) {
	dev, err := elementwiseDevice(a, b)
	if err != nil {
		return dev, nil, err
	}
	shape, err := broadcast(a, b)
	return dev, shape, err
}

func tensorOrNil(t *Tensor) *Tensor {
	if t.number {
		return nil
	}
	return t
}

// passGrad is add's backward: the incoming gradient, to both inputs.
func passGrad(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, len(n.inputs))
	for i, e := range n.inputs {
		if e.to != nil {
			grads[i] = share(g)
		}
	}
	return grads, nil
}

// subBackward: the incoming gradient for self, a negated copy of it
// for other.
func subBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	return newGrads(s, n, g, 1, nil)
}

// formulaOrder is the order (input indices) in which a node generated
// from derivatives.yaml computes the gradients of inputs so named:
// torchgen's load_derivatives takes a function's formulas in the sorted
// order of the names they are for, and the generated apply computes them
// in that order (mm's mat2 before self, div's other before self).
func formulaOrder(names ...string) []int {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(names[i], names[j]) })
	return order
}

// selfOther is formulaOrder of self and other: other's gradient first.
// It shows where one of the two is summed to a broadcast input's shape
// and freed: RMSNorm's x * weight, whose weight's product PyTorch makes
// first and frees first (llama_train.py's first backward,
// testdata/segments/h100/llama_train.jsonl).
var selfOther = formulaOrder("self", "other")

// mulBackward: grad * self for other, then grad * other for self.
func mulBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	return newGrads(s, n, g, 0, selfOther)
}

// mulGrads is the backward of a * b: grad * a for b, then grad * b for
// a (selfOther), each laid out as TensorIterator lays out that product.
func mulGrads(a, b *Tensor) backward {
	la, lb := layoutGhost(a), layoutGhost(b)
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		if !isComplex(g.DType) {
			return newGrads(s, n, g, 0, selfOther, lb, la)
		}
		// complex: grad * other.conj(), the conjugate made first and
		// freed after (the H200's rope backward peaks one conjugate of
		// freqs_cis above the rest: ops_rope_complex.py's recording, not
		// yet imported; estimated, as every complex op)
		var conj []*Tensor
		defer func() { s.dropAll(conj) }()
		others := []*Tensor{lb, la}
		for _, i := range selfOther {
			if n.inputs[i].to == nil || others[i] == nil {
				continue
			}
			other := others[i]
			c, err := s.alloc(slices.Clone(other.Shape), g.DType, g.Device())
			if err != nil {
				return make([]*Tensor, len(n.inputs)), err
			}
			conj = append(conj, c)
		}
		return newGrads(s, n, g, 0, selfOther, lb, la)
	}
}

// layoutGhost is t's shape and layout without its storage (nil for a
// number), for a backward to lay its gradients out by.
func layoutGhost(t *Tensor) *Tensor {
	if t.number {
		return nil
	}
	return &Tensor{Shape: t.Shape, strides: layoutOf(t)}
}

// newGrads gives each input that takes a gradient a new tensor of g's
// size, except the inputs before from, which take g itself, in the
// order of the inputs' indices in order (nil: first to last); input i's
// is laid out as an elementwise op over g and others[i] would be.
func newGrads(s *Session, n *node, g *Tensor, from int, order []int, others ...*Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, len(n.inputs))
	if order == nil {
		order = make([]int, len(n.inputs))
		for i := range order {
			order[i] = i
		}
	}
	for _, i := range order {
		if n.inputs[i].to == nil {
			continue
		}
		if i < from {
			grads[i] = share(g)
			continue
		}
		r, err := s.alloc(g.Shape, g.DType, g.Device())
		if err != nil {
			return grads, err
		}
		if i < len(others) {
			layOut(r, g, others[i])
		}
		grads[i] = r
	}
	return grads, nil
}

// broadcast is the shape of a op b.
func broadcast(a, b *Tensor) ([]int64, error) {
	if a.number {
		return b.Shape, nil
	}
	if b.number {
		return a.Shape, nil
	}
	out, i, ok := broadcastShapes(a.Shape, b.Shape)
	if !ok {
		return nil, Errorf(RuntimeError, "The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d", dimFromEnd(a.Shape, len(out)-1-i), dimFromEnd(b.Shape, len(out)-1-i), i)
	}
	return out, nil
}

// broadcastShapes is the shape a and b broadcast to; when they do not,
// ok is false and i is the first dimension (of the broadcast rank) whose
// sizes differ, neither of them 1.
func broadcastShapes(a, b []int64) (out []int64, i int, ok bool) {
	n := max(len(a), len(b))
	out = make([]int64, n)
	for i := range n {
		da, db := dimFromEnd(a, n-1-i), dimFromEnd(b, n-1-i)
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return out, i, false
		}
	}
	return out, 0, true
}

func dimFromEnd(shape []int64, k int) int64 {
	if k >= len(shape) {
		return 1
	}
	return shape[len(shape)-1-k]
}

// reductionTemps allocates and frees what PyTorch's reduction kernel
// takes from the caching allocator for a full reduction of x. The kernel
// runs 512-thread blocks, each thread first summing its share of the
// input; when a thread would have 256 values or more, the input is also
// split across blocks (ctas): as many as fill the GPU
// (multiprocessors x threads per multiprocessor / 512), at least enough
// for 256 values a thread, at most 16 values a thread. More than one
// block combine their partial results through a buffer of one
// accumulator (acc bytes, by op and dtype: reduce.go; 0 when not known)
// per block and a 4-byte semaphore, allocated in that order after the output
// and freed newest first (measured for float32, float16 and bfloat16,
// sum and mean, 100 sizes from 256 to 2^30 elements:
// scripts/probe_reduce.py, testdata/reduce_temps.jsonl, checked by
// TestReductionTemps; the accumulators of the others in
// testdata/pyrules/ops_reduce.py).
func (s *Session) reductionTemps(x *Tensor, acc uint64) error {
	dev := x.Device()
	if !dev.CUDA {
		return nil
	}
	s.reductionRan(dev)
	sms, threads := s.gpus[dev.Index].b.grid()
	for _, n := range indexablePieces(x.Numel(), x.DType.Size) {
		ctas := reductionBlocks(n, sms*threads/512)
		if ctas <= 1 {
			continue
		}
		if err := s.onCard(dev, "reduction", "%s: %s", argShapes(Args{x}), s.smCause(dev, "its blocks")); err != nil {
			return err
		}
		if acc == 0 {
			return NotModelledError("this reduction's accumulator on a large " + x.DType.Name + " input")
		}
		buf, err := s.newStorage(dev, acc*ctas, false)
		if err != nil {
			return err
		}
		buf.role = roleWorkspace
		sem, err := s.newStorage(dev, 4, false)
		if err == nil {
			sem.role = roleWorkspace
			s.release(sem)
		}
		s.release(buf)
		if err != nil {
			return err
		}
	}
	return nil
}

// indexablePieces splits n elements of size bytes as TensorIterator does
// for a kernel that indexes with 32 bits: in halves (the first the
// smaller), again and again, until no piece's last byte lies past
// 2^31-1. The kernel runs once a piece (measured: a sum of 805,306,368
// float32s reduces two halves, each with its own buffer).
func indexablePieces(n, size uint64) []uint64 {
	if n == 0 || (n-1)*size <= 1<<31-1 && n <= 1<<31-1 {
		return []uint64{n}
	}
	return append(indexablePieces(n/2, size), indexablePieces(n-n/2, size)...)
}

// reductionBlocks is how many blocks a full reduction of n values splits
// its input across, on a GPU that runs target blocks at once.
func reductionBlocks(n uint64, target int) uint64 {
	const threads, minPerThread, maxPerThread = 512, 16, 256
	perThread := (n + threads - 1) / threads
	if perThread < maxPerThread {
		return 1
	}
	return max(min(uint64(target), ceilDiv(perThread, minPerThread)), ceilDiv(perThread, maxPerThread))
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// torch.addcmul(input, tensor1, tensor2, value=1): input + value *
// tensor1 * tensor2 in one kernel, a new tensor of the three's broadcast
// shape (testdata/pyrules/ops_census_more.py, held statement by
// statement). AddcmulBackward0 saves the two factors; backward passes
// the gradient on to input and makes each factor's (grad * the other *
// value: a temporary, then it).
func init() {
	declare(&OpDef{Name: "addcmul", Function: true, Method: true,
		Params: []Param{input, {Name: "tensor1", Kind: TensorParam}, {Name: "tensor2", Kind: TensorParam}, {Name: "value", Kind: NumberParam, Default: "1", KeywordOnly: true}},
		Memory: "a new tensor of the broadcast shape; saves both factors; backward makes a temporary and a gradient for each factor",
		run: func(s *Session, a Args) (*Tensor, error) {
			x, t1, t2 := a.Tensor(0), a.Tensor(1), a.Tensor(2)
			shape, err := operandsOf(x, t1, t2)
			if err != nil {
				return nil, err
			}
			out, err := s.alloc(shape, x.DType, x.Device())
			if err != nil {
				return nil, err
			}
			layOut(out, x, t1, t2)
			s.record("AddcmulBackward0", out, []*Tensor{x, t1, t2}, []*Tensor{t1, t2}, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
				grads := make([]*Tensor, 3)
				if n.inputs[0].to != nil {
					grads[0] = share(g)
				}
				for i := 1; i < 3; i++ {
					if n.inputs[i].to == nil {
						continue
					}
					ts, err := s.allocAll(g.Device(), tensorShape{n.out, g.DType}, tensorShape{n.out, g.DType})
					if err != nil {
						return grads, err
					}
					s.dropTensor(ts[0])
					grads[i] = ts[1]
				}
				return grads, nil
			})
			return out, nil
		}})
}
