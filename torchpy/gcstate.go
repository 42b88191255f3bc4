package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// What CPython 3.12.3's collector holds once import torch has run
// (PyTorch 2.11, recorded by scripts/record_gc.py --start: testdata/
// experiments/gc/start.json): generation 0's count of container objects,
// the collections of generations 0 and 1 since the older one's, the
// objects generation 2 holds, and what CPython's free lists hold then.
// The state a plain python3 process reaches does not depend on what it
// made before (a fresh process after 0 to 1000 throwaway lists: 296, the
// generation-1 count 2 or 3); under scripts/record_gc.py, whose own
// imports ran first, every recording's import torch ends at
// (294, 3, 3).
var (
	importedCount  = [3]int{296, 2, 3}
	recordedCount  = [3]int{294, 3, 3}
	importedOldest = 163122
	importedLists  = 5
	importedDicts  = 80
	importedTuples = [21]int{1: 113, 2: 664, 3: 31, 4: 44, 5: 23, 6: 30, 7: 2, 8: 2, 9: 2, 10: 1, 11: 3, 12: 3, 13: 2, 14: 3, 15: 3, 16: 2, 17: 4, 18: 3, 19: 1, 20: 6}
)

// What PyTorch's lazy CUDA initialization makes in Python: the first
// CUDA tensor of a script adds 45 to generation 0's count with one list
// on the free list, 46 without (testdata/experiments/gc: gc_costs.py
// line 10, gh10348_exception_frame.py line 7), 44 container objects
// besides the list that holds what it keeps. CPython's free lists
// around a first CUDA tensor (gc_free_lists_first.stderr) show that it
// also takes 17 dicts, five 1-tuples, two pairs and four 4-tuples, and
// that the next collection gives back 16 of the dicts, four of the
// 1-tuples and the 4-tuples: those are garbage in a reference cycle
// (cudaInitLeft; which of the 44 objects are in it is not known, one is
// taken), the rest it keeps (cudaInitKept; one GPU's
// torch.cuda.default_generators is a 1-tuple). The two pairs stay taken
// past every collection of the leak experiments' loops
// (scripts/gc_free_lists_rounds.sh's reads of keras23206's and
// ppwwyyxx's 250 prints).
var (
	cudaInitKept = eval.Made{Objects: 43, Dicts: 1, Tuples: map[int]int{1: 1, 2: 2}}
	cudaInitLeft = eval.Made{Objects: 1, Dicts: 16, Tuples: map[int]int{1: 4, 4: 4}}
)

// cudaInitFreedLists is how many lists CUDA's lazy initialization frees
// onto CPython's free list (its Python's temporaries): six, whether the
// first CUDA tensor is made by a top-level statement, in a function or
// in a method, by torch.empty or torch.randn (gc_free_lists_cuda_top,
// _cuda_func, _randn and gc_free_lists_first.stderr). The four calls of
// torch.cuda.memory_allocated() and the other figures after a script's
// first CUDA tensor take four of them, adding 3 each (gc_costs.py line
// 10, gh10348_exception_frame.py line 7); the next statement's four
// take the last two and count two, and their pairs run out two sooner
// for the pairs CUDA's start keeps (gc_costs.py line 11: 350).
const cudaInitFreedLists = 6

// importedState is the collector's state after import torch: under
// the recorder's reads (AsRecorded) the recordings' counts.
func (b *Binding) importedState() eval.GCState {
	s := eval.GCState{Count: importedCount, LongTotal: importedOldest, FreeLists: importedLists, FreeDicts: importedDicts, FreeTuples: importedTuples}
	if b.AsRecorded {
		// recorded as exec() returned; the function it made for the
		// statement (eval's ExecStatement) still counts until then
		s.Count = recordedCount
		s.Count[0]++
		// the recorder's own imports and compile left two 1-tuples and
		// one 3-tuple more on the free lists (scripts/gc_free_lists.py
		// under record_gc.py, 2026-12-06: 115 and 32, the rest as a fresh
		// process has them)
		s.FreeTuples[1] += 2
		s.FreeTuples[3]++
	}
	return s
}

// RecorderReads does what scripts/record_gc.py does after each of a
// script's top-level statements: with the collector disabled, it reads
// cuda:0's allocated, reserved and peak bytes, four calls of
// torch.cuda.memory_stats() that each leave their cycle; nothing before
// torch is imported.
func (b *Binding) RecorderReads() error {
	if !b.imported {
		return nil
	}
	return b.in.CollectorOff(func() error {
		for range 4 {
			if err := b.statsCall(int64(0), false, func() error { return nil }); err != nil {
				return err
			}
		}
		return nil
	})
}

// What the first optimizer's add_param_group leaves CPython's collector
// with: torch._disable_dynamo imports torch._dynamo on its first call
// (scripts/gc_dynamo_import.py, recorded in the GPU call of 2026-12-06
// 19:42: testdata/experiments/gc/gc_dynamo_import.jsonl and .stderr).
// With the collector on, the import runs 209 collections of generation
// 0, 19 of generation 1 and 2 full ones; after it generation 2 holds
// 263,494 objects and none has reached it since its last collection
// (gc.get_count()[2] is 0): what was made before the import is in the
// oldest generation then (ImportCollected). Once the optimizer is made
// (the rest of add_param_group and of __init__ after the import), the
// free lists are as the recording read them then, and generation 0's
// count is the recording's after the statement, (411, 3, 0), with what
// goes after the optimizer's construction returns: the generator its
// call was given (weight.parameters()) and the function exec made for
// the statement (dynamoImportEnd; newOptimizer sets both). With the collector off (gc_costs.py line
// 29) the import keeps 191,650 objects in generation 0 more than the
// tool makes for the statement (CPython's line adds 191,664, the tool's
// optimizer and statement 14).
// The import's last objects, made after its last collection, hold
// garbage that the next collection frees: gh47589's first collection
// after it gives back 20 dicts, 32 1-tuples, 8 pairs and 11 4-tuples
// more than the tool's did without them (methods/gh47589_lambdalr_self's
// reads, the GPU call of 2026-12-06 21:48), which is where CPython's
// free lists stand after it, for the prints that follow
// (dynamoImportLeft, made as the construction ends, the counts and free
// lists then set as recorded).
var dynamoImportLeft = eval.Made{Objects: 1, Dicts: 20, Tuples: map[int]int{1: 32, 2: 8, 4: 11}}

var (
	dynamoImport = eval.GCState{Count: [3]int{413, 3, 0}, LongTotal: 263494, FreeLists: 67, FreeDicts: 17,
		FreeTuples: [21]int{1: 29, 2: 194, 3: 7, 4: 16, 5: 5, 6: 3, 7: 5, 8: 12, 9: 7, 11: 4, 12: 2, 13: 3, 14: 1, 15: 4, 16: 2, 17: 2, 18: 2}}
	dynamoImportEnd  = [3]int{413, 3, 0}
	dynamoImportRan  = [3]int{209, 19, 2}
	dynamoImportMade = 191650
)
