# nn.RNN, nn.LSTM and nn.GRU, and their cells, as PyTorch 2.11's
# torch/nn/modules/rnn.py runs them: the parameters made per layer and
# direction (weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k},
# weight_hr_l{k} with proj_size; _reverse for the second direction), the
# weights flattened into cuDNN's one buffer once they are on the GPU
# (flatten_parameters, again after every .to()), the zero hidden states
# made when none is given, PyTorch's checks, then torch.lstm/gru/rnn_tanh/
# rnn_relu (engine/rnn.go). The cells are lstm_cell, gru_cell,
# rnn_tanh_cell and rnn_relu_cell over the products and the fused cell
# kernels (rnn_cells.py).
import math as _math
import warnings as _warnings

_RNN_MODES = {'RNN_RELU': 0, 'RNN_TANH': 1, 'LSTM': 2, 'GRU': 3}
_GATES = {'LSTM': 4, 'GRU': 3, 'RNN_TANH': 1, 'RNN_RELU': 1}


class RNNBase(Module):
    """RNNBase(mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None): the recurrent layers' parameters and their one cuDNN buffer."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        import torch
        super().__init__()
        made = {'device': device, 'dtype': dtype}
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError('dropout should be a number in range [0, 1] representing the probability of an element being zeroed')
        if dropout > 0 and num_layers == 1:
            _warnings.warn('dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects '
                           f'num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}')
        if not isinstance(hidden_size, int):
            raise TypeError(f'hidden_size should be of type int, got: {type(hidden_size).__name__}')
        if hidden_size <= 0:
            raise ValueError('hidden_size must be greater than zero')
        if num_layers <= 0:
            raise ValueError('num_layers must be greater than zero')
        if proj_size < 0:
            raise ValueError('proj_size should be a positive integer or zero to disable projections')
        if proj_size >= hidden_size:
            raise ValueError('proj_size has to be smaller than hidden_size')
        if mode not in _GATES:
            raise ValueError('Unrecognized RNN mode: ' + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        step_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else step_size * directions
                w_ih = Parameter(torch.empty((gate_size, layer_input), **made))
                w_hh = Parameter(torch.empty((gate_size, step_size), **made))
                # both biases are made whether they are kept or not (a
                # local holds them until the next layer's are made)
                b_ih = Parameter(torch.empty(gate_size, **made))
                b_hh = Parameter(torch.empty(gate_size, **made))
                params = [w_ih, w_hh]
                names = ['weight_ih_l{}{}', 'weight_hh_l{}{}']
                if bias:
                    params += [b_ih, b_hh]
                    names += ['bias_ih_l{}{}', 'bias_hh_l{}{}']
                if proj_size > 0:
                    w_hr = Parameter(torch.empty((proj_size, hidden_size), **made))
                    params.append(w_hr)
                    names.append('weight_hr_l{}{}')
                suffix = '_reverse' if direction == 1 else ''
                names = [n.format(layer, suffix) for n in names]
                for name, p in zip(names, params):
                    setattr(self, name, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, n) if hasattr(self, n) else None for n in self._flat_weights_names]
        self.flatten_parameters()

    def _update_flat_weights(self):
        # a weight replaced since (functional_call, an assignment) is taken anew
        for w, name in zip(self._flat_weights, self._flat_weights_names):
            if hasattr(self, name) and getattr(self, name) is not w:
                self._init_flat_weights()
                return

    def flatten_parameters(self):
        """flatten_parameters(): the weights copied into cuDNN's one buffer, each set to its view there (when all are CUDA tensors cuDNN takes, of one dtype, none aliasing another)."""
        import torch
        ws = self._flat_weights
        if len(ws) != len(self._flat_weights_names) or not all(isinstance(w, torch.Tensor) for w in ws):
            return
        dtype = ws[0].dtype
        for w in ws:
            if w.dtype != dtype or not w.is_cuda or not torch.backends.cudnn.is_acceptable(w):
                return
        if len({w.data_ptr() for w in ws}) != len(ws):
            return
        with torch.cuda.device_of(ws[0]):
            with torch.no_grad():
                per_layer = (4 if self.bias else 2) + (1 if self.proj_size > 0 else 0)
                torch._cudnn_rnn_flatten_weight(ws, per_layer, self.input_size, _RNN_MODES[self.mode], self.hidden_size,
                                                self.proj_size, self.num_layers, self.batch_first, bool(self.bidirectional))

    def reset_parameters(self):
        stdv = 1.0 / _math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        import torch
        if input.dtype != self._flat_weights[0].dtype and not torch.is_autocast_enabled():
            raise ValueError(f'input must have the type {self._flat_weights[0].dtype}, got type {input.dtype}')
        dims = 2 if batch_sizes is not None else 3
        if input.dim() != dims:
            raise RuntimeError(f'input must have {dims} dimensions, got {input.dim()}')
        if self.input_size != input.size(-1):
            raise RuntimeError(f'input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}')

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg='Expected hidden size {}, got {}'):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if self.proj_size != 0:
            s += ', proj_size={proj_size}'
        if self.num_layers != 1:
            s += ', num_layers={num_layers}'
        if self.bias is not True:
            s += ', bias={bias}'
        if self.batch_first is not False:
            s += ', batch_first={batch_first}'
        if self.dropout != 0:
            s += ', dropout={dropout}'
        if self.bidirectional is not False:
            s += ', bidirectional={bidirectional}'
        return s.format(**self.__dict__)

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in weights] for weights in self._all_weights]

    def _prepare(self, input, hx, unbatched_hx):
        # the input and h_0 as the layer takes them: a packed sequence's
        # parts, or the batch dimension added to an unbatched input; h_0
        # zeros when not given (None, for the caller to make)
        from torch.nn.utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, batch_sizes, sorted_indices, unsorted_indices, True, int(batch_sizes[0]), hx
        if input.dim() not in (2, 3):
            tensor = ' tensor' if self.mode.startswith('RNN') else ''
            raise ValueError(f'{self._name()}: Expected input to be 2D or 3D, got {input.dim()}D{tensor} instead')
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                hx = unbatched_hx(hx)
        batch = input.size(0) if self.batch_first else input.size(1)
        return input, None, None, None, batched, batch, hx

    def _name(self):
        return type(self).__name__ if self.mode in ('LSTM', 'GRU') else 'RNN'

    def _one_hidden(self, input, hx):
        # RNN's and GRU's forward: one hidden state
        import torch
        from torch.nn.utils.rnn import PackedSequence
        self._update_flat_weights()
        packed = isinstance(input, PackedSequence)
        if not packed and hx is not None and input.dim() in (2, 3) and hx.dim() != input.dim():
            kind = '3-D' if input.dim() == 3 else '2-D'
            raise RuntimeError(f'For {"batched" if input.dim() == 3 else "unbatched"} {kind} input, hx should also be {kind} but got {hx.dim()}-D tensor')

        def unbatched(h):
            return h.unsqueeze(1)
        input, batch_sizes, sorted_indices, unsorted_indices, batched, batch, hx = self._prepare(input, hx, unbatched)
        directions = 2 if self.bidirectional else 1
        if hx is None:
            size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = torch.zeros(self.num_layers * directions, batch, size, dtype=input.dtype, device=input.device)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        op = {'GRU': torch.gru, 'RNN_TANH': torch.rnn_tanh, 'RNN_RELU': torch.rnn_relu}[self.mode]
        if batch_sizes is None:
            result = op(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                        self.bidirectional, self.batch_first)
        else:
            result = op(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                        self.training, self.bidirectional)
        output, hidden = result[0], result[1]
        if packed:
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), self.permute_hidden(hidden, unsorted_indices)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    """RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0, bidirectional=False): torch.rnn_tanh or rnn_relu on cuDNN."""

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError('proj_size argument is only supported for LSTM, not RNN or GRU')
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop('nonlinearity', 'tanh')
        if self.nonlinearity == 'tanh':
            mode = 'RNN_TANH'
        elif self.nonlinearity == 'relu':
            mode = 'RNN_RELU'
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden(input, hx)


class GRU(RNNBase):
    """GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False): torch.gru on cuDNN."""

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError('proj_size argument is only supported for LSTM, not RNN or GRU')
        super().__init__('GRU', *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden(input, hx)


class LSTM(RNNBase):
    """LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0): torch.lstm on cuDNN."""

    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes), 'Expected hidden[0] size {}, got {}')
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes), 'Expected hidden[1] size {}, got {}')

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        import torch
        from torch.nn.utils.rnn import PackedSequence
        self._update_flat_weights()
        packed = isinstance(input, PackedSequence)
        if not packed and hx is not None and input.dim() in (2, 3):
            if input.dim() == 3 and (hx[0].dim() != 3 or hx[1].dim() != 3):
                raise RuntimeError(f'For batched 3-D input, hx and cx should also be 3-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors')
            if input.dim() == 2 and (hx[0].dim() != 2 or hx[1].dim() != 2):
                raise RuntimeError(f'For unbatched 2-D input, hx and cx should also be 2-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors')

        def unbatched(h):
            return (h[0].unsqueeze(1), h[1].unsqueeze(1))
        input, batch_sizes, sorted_indices, unsorted_indices, batched, batch, hx = self._prepare(input, hx, unbatched)
        directions = 2 if self.bidirectional else 1
        if hx is None:
            size = self.proj_size if self.proj_size > 0 else self.hidden_size
            h_zeros = torch.zeros(self.num_layers * directions, batch, size, dtype=input.dtype, device=input.device)
            c_zeros = torch.zeros(self.num_layers * directions, batch, self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (h_zeros, c_zeros)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        if batch_sizes is None:
            result = torch.lstm(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                                self.bidirectional, self.batch_first)
        else:
            result = torch.lstm(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                self.training, self.bidirectional)
        output, hidden = result[0], result[1:]
        if packed:
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), self.permute_hidden(hidden, unsorted_indices)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNNCellBase(Module):
    """RNNCellBase(input_size, hidden_size, bias, num_chunks): a cell's weight_ih, weight_hh and biases."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        import torch
        super().__init__()
        made = {'device': device, 'dtype': dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), **made))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), **made))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, **made))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, **made))
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)
        self.reset_parameters()

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if 'bias' in self.__dict__ and self.bias is not True:
            s += ', bias={bias}'
        if 'nonlinearity' in self.__dict__ and self.nonlinearity != 'tanh':
            s += ', nonlinearity={nonlinearity}'
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / _math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, hx, name):
        # the batch dimension added to an unbatched input and its hidden
        # states, PyTorch's checks of their dimensions
        if input.dim() not in (1, 2):
            raise ValueError(f'{name}: Expected input to be 1D or 2D, got {input.dim()}D instead')
        for h in (hx if isinstance(hx, tuple) else (hx,)):
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f'{name}: Expected hidden to be 1D or 2D, got {h.dim()}D instead')
        return input.dim() == 2


class RNNCell(RNNCellBase):
    """RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh'): torch.rnn_tanh_cell or rnn_relu_cell."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        import torch
        batched = self._batched(input, hx, 'RNNCell')
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity == 'tanh':
            ret = torch.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == 'relu':
            ret = torch.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f'Unknown nonlinearity: {self.nonlinearity}')
        if not batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    """LSTMCell(input_size, hidden_size, bias=True): torch.lstm_cell, (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        import torch
        if input.dim() not in (1, 2):
            raise ValueError(f'LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead')
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f'LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead')
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        ret = torch.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """GRUCell(input_size, hidden_size, bias=True): torch.gru_cell."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        import torch
        batched = self._batched(input, hx, 'GRUCell')
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        ret = torch.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            ret = ret.squeeze(0)
        return ret
