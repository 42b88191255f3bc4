package torchpy_test

import "testing"

// TestModuleRegistries: Module.__init__ makes its hook registries
// OrderedDicts and its non-persistent buffers a set, as PyTorch 2.11
// does, so vars(module) prints them as PyTorch does; register_buffer
// adds a non-persistent name to the set and takes it out when the
// buffer is registered again as persistent (state_dict follows), and a
// hook's handle removes it from its OrderedDict; deepcopy keeps the
// types.
func TestModuleRegistries(t *testing.T) {
	src := `import torch, copy
m = torch.nn.Linear(2, 2)
print({k: v for k, v in vars(m).items() if k not in ('_parameters', 'training', 'in_features', 'out_features')})
print(type(m._forward_hooks), type(m._non_persistent_buffers_set))
m.register_buffer('a', torch.zeros(2), persistent=False)
m.register_buffer('b', torch.zeros(2))
print(m._non_persistent_buffers_set, list(m.state_dict()))
m.register_buffer('a', torch.zeros(2))
print(m._non_persistent_buffers_set, list(m.state_dict()))
h = m.register_forward_hook(lambda *a: None)
print(len(m._forward_hooks), isinstance(m._forward_hooks, dict))
h.remove()
print(m._forward_hooks, type(copy.deepcopy(m)._forward_pre_hooks).__name__)
`
	want := "{'_buffers': {}, '_non_persistent_buffers_set': set(), '_backward_pre_hooks': OrderedDict(), '_backward_hooks': OrderedDict(), '_is_full_backward_hook': None, " +
		"'_forward_hooks': OrderedDict(), '_forward_hooks_with_kwargs': OrderedDict(), '_forward_hooks_always_called': OrderedDict(), '_forward_pre_hooks': OrderedDict(), '_forward_pre_hooks_with_kwargs': OrderedDict(), " +
		"'_state_dict_hooks': OrderedDict(), '_state_dict_pre_hooks': OrderedDict(), '_load_state_dict_pre_hooks': OrderedDict(), '_load_state_dict_post_hooks': OrderedDict(), '_modules': {}}\n" +
		"<class 'collections.OrderedDict'> <class 'set'>\n" +
		"{'a'} ['weight', 'bias', 'b']\n" +
		"set() ['weight', 'bias', 'a', 'b']\n" +
		"1 True\n" +
		"OrderedDict() OrderedDict\n"
	if got := runSource(t, 1, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
