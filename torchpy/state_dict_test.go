package torchpy_test

import "testing"

// TestLoadStateDicts: GradScaler's state_dict and load_state_dict carry
// the scale and the tracker over, a disabled scaler saves {} and an
// enabled one refuses it, and optimizer.load_state_dict takes the saved
// groups' options, refuses groups that do not match and says a state
// with tensors is not modelled. That they allocate nothing is checked
// against PyTorch by testdata/experiments/tutorial_amp_recipe.
func TestLoadStateDicts(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"scaler", `import torch
w = torch.ones(4, device="cuda", requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
s = torch.amp.GradScaler()
s.scale(w.sum()).backward()
s.step(opt)
s.update()
s2 = torch.amp.GradScaler(init_scale=8.0)
s2.load_state_dict(s.state_dict())
print(s2.get_scale(), s2.state_dict()["_growth_tracker"], s2.get_growth_interval())
print(torch.amp.GradScaler(enabled=False).state_dict())
s2.load_state_dict({})
`, "65536.0 1 2000\n{}\nerror: 12:1: RuntimeError: The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.\n"},
		{"sgd", `import torch
w = torch.ones(4, device="cuda", requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
sd = opt.state_dict()
sd["param_groups"][0]["lr"] = 0.5
opt.load_state_dict(sd)
print(opt.param_groups[0]["lr"], opt.param_groups[0]["params"][0] is w)
opt.load_state_dict({"state": {}, "param_groups": []})
opt.load_state_dict({"state": {}, "param_groups": [{"lr": 0.1, "params": [0, 1]}]})
`, "0.5 True\nerror: 8:1: ValueError: loaded state dict has a different number of parameter groups\n" +
			"error: 9:1: ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group\n"},
		{"adam", `import torch
w = torch.ones(4, device="cuda", requires_grad=True)
opt = torch.optim.Adam([w])
w.sum().backward()
opt.step()
opt.load_state_dict(opt.state_dict())
`, "error: 6:1: NotImplementedError: gpumemrepl does not model optimizer.load_state_dict of a state that holds tensors (each is cast to its parameter's device and dtype) yet, so it cannot say what memory it uses\n"},
		// Module.state_dict's destination: an OrderedDict with _metadata,
		// each module's dict(version=1) under its prefix, the module first
		{"module", `import torch
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sequential(torch.nn.ReLU()))
sd = net.state_dict()
print(type(sd).__name__, list(sd), sd._metadata)
print(net.load_state_dict(sd))
`, "OrderedDict ['0.weight', '0.bias'] OrderedDict([('', {'version': 1}), ('0', {'version': 1}), ('1', {'version': 1}), ('1.0', {'version': 1})])\n<All keys matched successfully>\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := runSource(t, 1, c.src); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
