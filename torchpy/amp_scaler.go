package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// gradScaler is a torch.amp.GradScaler (torch.cuda.amp.GradScaler):
// its tensors are the engine's (engine/amp_scaler.go); a disabled one
// makes none and passes everything through.
type gradScaler struct {
	eval.Header
	g       *engine.GradScaler
	enabled bool
	b       *Binding
}

var gradScalerType = eval.NewClass("GradScaler", "torch.amp.grad_scaler")

// Type is torch.amp.GradScaler.
func (g *gradScaler) Type() *eval.Class { return gradScalerType }

// Traverse visits nothing: the optimizers it keeps state for are keys
// only, as PyTorch keys them by id().
func (g *gradScaler) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (g *gradScaler) Clear(*eval.Interp) {}

// Finalize frees the scaler's tensors.
func (g *gradScaler) Finalize(*eval.Interp) { g.b.S.FreeGradScaler(g.g) }

// newGradScaler reads GradScaler's arguments (torch.amp's begins with
// the device) and makes one.
func (b *Binding) newGradScaler(fn string, args []eval.Value, kw []eval.KeywordArg, withDevice bool) (eval.Value, error) {
	in := b.in
	names := []string{"init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled"}
	if withDevice {
		names = append([]string{"device"}, names...)
	}
	a, err := in.ArgSpec(fn, args, kw, 0, names...)
	if err != nil {
		return nil, err
	}
	if withDevice {
		if a[0] != nil && a[0] != "cuda" {
			return nil, b.notModelled("GradScaler on another device than 'cuda'")
		}
		a = a[1:]
	}
	nums := []float64{65536, 2, 0.5, 2000}
	for i := range nums {
		if a[i] == nil {
			continue
		}
		v, ok := number(a[i])
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "GradScaler(): %s must be a number, not %s", names[len(names)-5+i], eval.TypeOf(a[i]).Name)
		}
		nums[i] = v
	}
	enabled := true
	if a[4] != nil {
		if enabled, err = in.Truth(a[4]); err != nil {
			return nil, err
		}
	}
	g := engine.NewGradScaler(nums[0], nums[1], nums[2], int64(nums[3]))
	return eval.Track(in, &gradScaler{g: g, enabled: enabled, b: b}), nil
}

// scalerMethod declares a method of GradScaler taking the arguments in
// names (the first required ones first).
func scalerMethod(name, doc string, required int, names []string, f func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error)) {
	gradScalerType.SetMethod(eval.NewBuiltin(name, doc, func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec(name, args, kw, required, names...)
		if err != nil {
			return nil, err
		}
		g := self.(*gradScaler)
		return f(g.b, g, a)
	}))
}

func init() {
	scalerMethod("scale", "scale(outputs): outputs times the scale, a new tensor (the first call makes the scale and the growth tracker, 0-d)", 1, []string{"outputs"}, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		if !g.enabled {
			eval.Incref(a[0])
			return a[0], nil
		}
		t, ok := a[0].(*Tensor)
		if !ok {
			return nil, b.notModelled("GradScaler.scale of other than one tensor")
		}
		if !t.T.Device().CUDA {
			return nil, b.in.Raise(eval.AssertionErrorType, "")
		}
		out, err := b.S.ScaleOutput(g.g, t.T)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return b.wrap(out), nil
	})
	scalerMethod("unscale_", "unscale_(optimizer): makes found_inf (0-d, kept until update()); the gradients are unscaled in place", 1, []string{"optimizer"}, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		if g.enabled {
			if err := b.S.Unscale(g.g, a[0]); err != nil {
				return nil, b.pyErr(err)
			}
		}
		return eval.None, nil
	})
	scalerMethod("step", "step(optimizer): unscale_ when not yet done, then optimizer.step() (no gradient is taken to overflow)", 1, []string{"optimizer"}, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		var r eval.Value = eval.None
		step := func() (err error) {
			r, err = b.in.CallMethod(a[0], "step")
			return err
		}
		if !g.enabled {
			return r, b.pyErr(step())
		}
		if err := b.S.ScalerStep(g.g, a[0], step); err != nil {
			return nil, b.pyErr(err)
		}
		return r, nil
	})
	scalerMethod("update", "update(new_scale=None): the scale and growth tracker change in place; found_inf goes", 0, []string{"new_scale"}, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		if !g.enabled {
			return eval.None, nil
		}
		if a[0] != nil && a[0] != eval.None {
			return nil, b.notModelled("GradScaler.update(new_scale)")
		}
		return eval.None, b.pyErr(b.S.ScalerUpdate(g.g))
	})
	scalerMethod("get_scale", "get_scale(): the scale as a float (1.0 when disabled)", 0, nil, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		if !g.enabled {
			return 1.0, nil
		}
		return g.g.Scale(), nil
	})
	scalerMethod("state_dict", "state_dict(): the scale, factors, interval and growth tracker as numbers ({} when disabled); nothing allocated", 0, nil, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		d := b.in.NewDict()
		if g.enabled {
			b.in.PutStr(d, "scale", g.g.Scale(), "")
			b.in.PutStr(d, "growth_factor", g.g.GrowthFactor, "")
			b.in.PutStr(d, "backoff_factor", g.g.BackoffFactor, "")
			b.in.PutStr(d, "growth_interval", g.g.GrowthInterval, "")
			b.in.PutStr(d, "_growth_tracker", g.g.Tracker(), "")
		}
		return d, nil
	})
	scalerMethod("load_state_dict", "load_state_dict(state_dict): the saved numbers; the scale and tracker are filled in place, nothing allocated", 1, []string{"state_dict"}, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		if !g.enabled {
			return eval.None, nil
		}
		n, err := b.in.Len(a[0])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, b.in.Raise(eval.RuntimeErrorType, "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.")
		}
		var nums [5]float64
		for i, k := range []string{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"} {
			v, err := b.in.GetItem(a[0], k)
			if err != nil {
				return nil, err
			}
			f, ok := number(v)
			typ := eval.TypeOf(v).Name
			b.in.Decref(v)
			if !ok {
				return nil, b.in.Raise(eval.TypeErrorType, "GradScaler.load_state_dict(): %s must be a number, not %s", k, typ)
			}
			nums[i] = f
		}
		g.g.Load(nums[0], nums[1], nums[2], int64(nums[3]), int64(nums[4]))
		return eval.None, nil
	})
	scalerMethod("is_enabled", "is_enabled()", 0, nil, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		return g.enabled, nil
	})
	scalerMethod("get_growth_interval", "get_growth_interval()", 0, nil, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		return g.g.GrowthInterval, nil
	})
	scalerMethod("get_growth_factor", "get_growth_factor()", 0, nil, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		return g.g.GrowthFactor, nil
	})
	scalerMethod("get_backoff_factor", "get_backoff_factor()", 0, nil, func(b *Binding, g *gradScaler, a []eval.Value) (eval.Value, error) {
		return g.g.BackoffFactor, nil
	})
}
