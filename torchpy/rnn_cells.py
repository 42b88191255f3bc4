# torch.lstm_cell, gru_cell, rnn_tanh_cell and rnn_relu_cell: PyTorch
# 2.11's composites (native/RNN.cpp's LSTMCell, GRUCell and SimpleCell on
# the GPU), the same ops in the same order: the input's and the hidden
# state's products with the weights, then the fused cell kernel
# (engine/rnn_cells.go), or for the simple cell the two linears added in
# place and the nonlinearity. A local dies as the C++ one does.


def _cell_checks(input, w_ih, w_hh, hiddens):
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f'input has inconsistent input_size: got {input.size(1)} expected {w_ih.size(1)}')
    for label, h in enumerate(hiddens):
        if input.size(0) != h.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {h.size(0)}")
        if h.size(1) != w_hh.size(1):
            raise RuntimeError(f'hidden{label} has inconsistent hidden_size: got {h.size(1)}, expected {w_hh.size(1)}')


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None): (h', c') by input @ w_ih.t() and h @ w_hh.t(), then torch._thnn_fused_lstm_cell."""
    import torch
    if len(hx) != 2:
        raise RuntimeError('lstm_cell expects two hidden states')
    _cell_checks(input, w_ih, w_hh, hx)
    igates = torch.matmul(input, w_ih.t())
    hgates = torch.matmul(hx[0], w_hh.t())
    hy, cy, workspace = torch._thnn_fused_lstm_cell(igates, hgates, hx[1], b_ih, b_hh)
    del workspace, hgates, igates
    return hy, cy


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None): h' by input @ w_ih.t() and hx @ w_hh.t(), then torch._thnn_fused_gru_cell."""
    import torch
    _cell_checks(input, w_ih, w_hh, [hx])
    igates = torch.matmul(input, w_ih.t())
    hgates = torch.matmul(hx, w_hh.t())
    hy, workspace = torch._thnn_fused_gru_cell(igates, hgates, hx, b_ih, b_hh)
    del workspace, hgates, igates
    return hy


def _simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh, act):
    import torch
    _cell_checks(input, w_ih, w_hh, [hx])
    # C++'s temporaries live to the end of the full expression: both
    # products outlive the nonlinearity's output, the input's going first
    hh = torch.nn.functional.linear(hx, w_hh, b_hh)
    ih = torch.nn.functional.linear(input, w_ih, b_ih)
    out = act(hh.add_(ih))
    del ih, hh
    return out


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None): tanh(linear(hx, w_hh, b_hh).add_(linear(input, w_ih, b_ih)))."""
    import torch
    return _simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh, torch.tanh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None): relu(linear(hx, w_hh, b_hh).add_(linear(input, w_ih, b_ih)))."""
    import torch
    return _simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh, torch.relu)
