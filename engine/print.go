package engine

import (
	"fmt"
	"math"
	"strings"
)

// Values are kept where they are cheap to keep: a storage made by zeros,
// ones or full holds one value everywhere, torch.tensor([...]) its
// elements, and copies and views keep them. Every other op (and rand,
// randn, empty, and in-place updates such as optimizer steps) leaves them
// unknown: only sizes are modelled.

// knownValues are a storage's element values: one value (everywhere) or
// one per element.
type knownValues []float64

// at is element i.
func (v knownValues) at(i uint64) float64 {
	if len(v) == 1 {
		return v[0]
	}
	return v[i]
}

// createValues are the values factory op writes; values are full's fill
// value or tensor's elements.
func createValues(op string, values []float64) knownValues {
	switch op {
	case "zeros":
		return knownValues{0}
	case "ones":
		return knownValues{1}
	case "full", "tensor":
		return knownValues(values)
	}
	return nil
}

// summarizeOver is the size above which PyTorch prints only the edges of
// each dimension (torch.set_printoptions threshold), and edgeItems how
// many at each end.
const (
	summarizeOver = 1000
	edgeItems     = 3
	lineWidth     = 80 // torch.set_printoptions linewidth
)

// repr is print(t) in PyTorch's format.
func repr(t *Tensor) string {
	if t.IsMeta() {
		return metaRepr(t)
	}
	n := t.Numel()
	if n == 0 && !t.number {
		return emptyRepr(t)
	}
	summarize := n > summarizeOver
	shown, ok := printedValues(t, summarize)
	if !ok {
		return fmt.Sprintf("tensor(<values not computed: %s>)", describe(t))
	}
	var cells []string
	f := newFormatter(shown, t.DType)
	for _, v := range shown {
		cells = append(cells, f.format(v))
	}
	width := f.width
	k := 0
	var b strings.Builder
	var write func(dim, indent int)
	write = func(dim, indent int) {
		if dim == len(t.Shape) {
			fmt.Fprintf(&b, "%*s", width, cells[k])
			k++
			return
		}
		b.WriteString("[")
		last := dim == len(t.Shape)-1
		// _vector_str fits max(1, (80 - indent) / (width + 2)) elements
		// (" ..." among them) on a line
		perLine := max(1, (lineWidth-indent)/(width+2))
		for j, i := range shownIndices(t.Shape[dim], summarize) {
			switch {
			case j == 0:
			case last && j%perLine != 0:
				b.WriteString(", ")
			case last:
				b.WriteString(",\n" + strings.Repeat(" ", indent+1))
			default:
				b.WriteString("," + strings.Repeat("\n", len(t.Shape)-1-dim) + strings.Repeat(" ", indent+1))
			}
			if i < 0 { // PyTorch writes " ..." among elements, "..." among rows
				b.WriteString(map[bool]string{true: " ...", false: "..."}[last])
				continue
			}
			write(dim+1, indent+1)
		}
		b.WriteString("]")
	}
	if len(t.Shape) == 0 {
		b.WriteString(cells[0])
	} else {
		write(0, len("tensor("))
	}
	return "tensor(" + b.String() + reprSuffix(t) + ")"
}

// printedValues are the values of the elements print(t) shows, in
// order (every element, or with summarize the edges of each dimension:
// get_summarized_data's), read through t's strides; false when the tool
// does not know t's values.
func printedValues(t *Tensor, summarize bool) ([]float64, bool) {
	if t.number || t.st.vals == nil {
		return nil, false
	}
	vals, strides := t.st.vals, t.Strides()
	var out []float64
	var walk func(dim int, at int64)
	walk = func(dim int, at int64) {
		if dim == len(t.Shape) {
			out = append(out, vals.at(uint64(at)))
			return
		}
		for _, i := range shownIndices(t.Shape[dim], summarize) {
			if i >= 0 {
				walk(dim+1, at+i*strides[dim])
			}
		}
	}
	walk(0, int64(t.offset))
	return out, true
}

// emptyRepr is PyTorch's print of a tensor of no elements, whatever its
// shape: "[]", the device, the size unless it is one-dimensional, and the
// dtype unless it is the default float32 (an empty tensor shows int64
// too, having no element to tell it by).
func emptyRepr(t *Tensor) string {
	s := "tensor([]"
	if d := t.Device(); d.CUDA {
		s += fmt.Sprintf(", device='%s'", d)
	}
	if len(t.Shape) != 1 {
		s += ", size=" + sizeTuple(t.Shape)
	}
	if t.DType.Name != "float32" {
		s += ", dtype=torch." + t.DType.Name
	}
	return s + gradSuffix(t) + ")"
}

// metaRepr is PyTorch's print of a meta tensor: no values, its size
// always, a dtype that is not the default.
func metaRepr(t *Tensor) string {
	s := "tensor(..., device='meta', size=" + sizeTuple(t.Shape)
	if t.DType.Name != "float32" {
		s += ", dtype=torch." + t.DType.Name
	}
	return s + gradSuffix(t) + ")"
}

// sizeTuple is a shape as a Python tuple: (3,) for one dimension.
func sizeTuple(shape []int64) string {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(dims) == 1 {
		tuple += ","
	}
	return "(" + tuple + ")"
}

// gradSuffix is what a print says of autograd: the node that made the
// tensor, or that it is a leaf requiring grad.
func gradSuffix(t *Tensor) string {
	switch {
	case t.fn != nil:
		return ", grad_fn=<" + className(t.fn.name) + ">"
	case t.slot != nil:
		return ", requires_grad=True"
	}
	return ""
}

// shownIndices are the indices of a dimension that are printed; -1 marks
// the "..." of a summarized dimension.
func shownIndices(size int64, summarize bool) []int64 {
	var out []int64
	if summarize && size > 2*edgeItems {
		for i := int64(0); i < edgeItems; i++ {
			out = append(out, i)
		}
		out = append(out, -1)
		for i := size - edgeItems; i < size; i++ {
			out = append(out, i)
		}
		return out
	}
	for i := int64(0); i < size; i++ {
		out = append(out, i)
	}
	return out
}

// formatter is PyTorch's _Formatter (torch/_tensor_str.py): over the
// printed values, whether floats are all whole (int mode: "1."), whether
// they need scientific notation (a ratio of largest to smallest nonzero
// magnitude over 1000, a magnitude over 1e8, or below 1e-4 when not
// whole), and the width every element is padded to.
type formatter struct {
	float, intMode, sci bool
	dt                  DType
	width               int
}

func newFormatter(vals []float64, dt DType) formatter {
	f := formatter{float: isFloat(dt), intMode: true, dt: dt, width: 1}
	if !f.float {
		for _, v := range vals {
			f.width = max(f.width, len(f.format(v)))
		}
		return f
	}
	finite, lo, hi := nonzeroFinite(vals)
	if len(finite) == 0 {
		return f
	}
	for _, v := range finite {
		if v != math.Ceil(v) {
			f.intMode = false
			break
		}
	}
	f.sci = hi/lo > 1000 || hi > 1e8 || !f.intMode && lo < 1e-4
	for _, v := range finite {
		f.width = max(f.width, len(f.format(v)))
	}
	return f
}

// nonzeroFinite are the values of vals that are neither zero, infinite
// nor nan (the formatter's masked_select), and the least and greatest of
// their magnitudes.
func nonzeroFinite(vals []float64) (finite []float64, lo, hi float64) {
	lo = math.Inf(1)
	for _, v := range vals {
		if v != 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			finite = append(finite, v)
			lo, hi = min(lo, math.Abs(v)), max(hi, math.Abs(v))
		}
	}
	return finite, lo, hi
}

// format is one value as PyTorch prints it, before padding.
func (f formatter) format(v float64) string {
	switch {
	case f.dt.Name == "bool":
		if v != 0 {
			return "True"
		}
		return "False"
	case !f.float:
		return fmt.Sprint(int64(v))
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case f.sci:
		return fmt.Sprintf("%.4e", v)
	case f.intMode:
		return fmt.Sprintf("%.0f.", v)
	}
	return fmt.Sprintf("%.4f", v)
}

// reprSuffix is what PyTorch adds after the values: the device, a dtype
// that is not the default one, and grad.
func reprSuffix(t *Tensor) string {
	var s string
	if d := t.Device(); d.CUDA {
		s += fmt.Sprintf(", device='%s'", d)
	}
	switch t.DType.Name {
	case "float32", "int64", "bool":
	default:
		s += ", dtype=torch." + t.DType.Name
	}
	return s + gradSuffix(t)
}
