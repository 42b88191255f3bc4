# torch.nn.utils.rnn: packed sequences, as PyTorch 2.11 makes them
# (torch/nn/utils/rnn.py): PackedSequence (data, batch_sizes on the
# host, sorted_indices and unsorted_indices), pack_padded_sequence
# (sorting by length first unless enforce_sorted), pad_packed_sequence,
# pad_sequence and pack_sequence, over torch._pack_padded_sequence and
# torch._pad_packed_sequence (engine/rnn_pack.go).
import collections as _collections

_PackedSequenceBase = _collections.namedtuple('PackedSequence_', ['data', 'batch_sizes', 'sorted_indices', 'unsorted_indices'])


def invert_permutation(permutation):
    import torch
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


class PackedSequence(_PackedSequenceBase):
    """PackedSequence(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None): the steps of sequences of several lengths, packed; what an RNN takes and gives for them."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        elif batch_sizes.device.type != 'cpu':
            raise ValueError('batch_sizes should always be on CPU. Instances of PackedSequence should never be created '
                             'manually. They should be instantiated by functions like pack_sequence and '
                             'pack_padded_sequences in nn.utils.rnn. '
                             'https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence')
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        rest = {k: v for k, v in kwargs.items() if k not in ('device', 'dtype')}
        moved = [None if t is None else t.to(data.device, **rest) for t in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, moved[0], moved[1])

    def cuda(self, *args, **kwargs):
        import torch
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).cuda(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs['device'] = 'cuda'
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device='cpu', **kwargs)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True): the valid steps of a padded batch, packed; unless enforce_sorted, the batch sorted by length first (a gather of the input)."""
    import torch
    if not isinstance(lengths, torch.Tensor):
        lengths = torch.as_tensor(lengths, dtype=torch.int64, device='cpu')
    else:
        lengths = lengths.to(dtype=torch.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = torch._pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None): a packed sequence padded again, and its lengths (on the host), in the order it was packed from."""
    import torch
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError('Expected total_length to be at least the length of the longest sequence in input, but got '
                             f'total_length={total_length} and max sequence length being {max_seq_length}')
        max_seq_length = total_length
    padded, lengths = torch._pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first, padding_value, max_seq_length)
    order = sequence.unsorted_indices
    if order is not None:
        return padded.index_select(0 if batch_first else 1, order), lengths[order.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right'):
    """pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right'): the sequences in one tensor filled with padding_value, each copied in."""
    import torch
    if padding_side not in ('left', 'right'):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, torch.Tensor):
        sequences = sequences.unbind(0)
    return torch._pad_sequence(sequences, batch_first, padding_value, padding_side)


def pack_sequence(sequences, enforce_sorted=True):
    """pack_sequence(sequences, enforce_sorted=True): pad_sequence then pack_padded_sequence."""
    import torch
    lengths = torch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """unpad_sequence(padded_sequences, lengths, batch_first=False): each sequence's valid steps, a view each."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(length)] for seq, length in zip(padded_sequences, lengths)]


def unpack_sequence(packed_sequences):
    """unpack_sequence(packed_sequences): pad_packed_sequence then unpad_sequence."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
