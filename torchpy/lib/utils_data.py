# torch.utils.data, as gpumemrepl runs it (embedded by data.go).
import torch


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError('Subclasses of Dataset should implement __getitem__.')

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    def __iter__(self):
        raise NotImplementedError('Subclasses of IterableDataset should implement __iter__.')


class TensorDataset(Dataset):
    def __init__(self, *tensors):
        for t in tensors:
            if t.size(0) != tensors[0].size(0):
                raise AssertionError('Size mismatch between tensors')
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError('datasets should not be an empty iterable')
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError('absolute value of index should not exceed dataset length')
            idx = len(self) + idx
        start = 0
        for d, end in zip(self.datasets, self.cumulative_sizes):
            if idx < end:
                return d[idx - start]
            start = end
        raise IndexError('index out of range')


def random_split(dataset, lengths, generator=None):
    n = len(dataset)
    if all(isinstance(x, float) for x in lengths) and abs(sum(lengths) - 1) < 1e-9:
        sizes = [int(n * f) for f in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError('Sum of input lengths does not equal the length of the input dataset!')
    out, start = [], 0
    for k in lengths:
        out.append(_Shuffled(dataset, list(range(start, start + k))))
        start += k
    return out


class _Shuffled(Subset):
    # random_split's pieces: PyTorch's are random indices; the tool takes
    # them in order (the same sizes) and its samples' values are not known
    def __getitem__(self, idx):
        return _forget(super().__getitem__(idx))


def _forget(data):
    if isinstance(data, torch.Tensor):
        _forget_values(data)
    elif isinstance(data, dict):
        for v in data.values():
            _forget(v)
    elif isinstance(data, (list, tuple)):
        for v in data:
            _forget(v)
    return data


class Sampler:
    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    # the order is random in PyTorch: the tool's is in order, and the
    # loader marks what it yields as not known
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if replacement:
            raise _refusal(NotImplementedError('RandomSampler(replacement=True) is not modelled by gpumemrepl'))
        self.data_source = data_source
        self._num_samples = num_samples

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        for i in range(self.num_samples):
            yield i % n

    def __len__(self):
        return self.num_samples


class DistributedSampler(Sampler):
    # torch.utils.data.distributed's: one replica's share of the dataset,
    # padded (or cut, with drop_last) to a multiple of the replicas. Without
    # num_replicas and rank PyTorch asks the default process group, which
    # never exists here. Its order is shuffled by seed and epoch in PyTorch:
    # here it is in order, and the loader marks what it yields as not known
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        import math
        import torch.distributed as dist
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f'Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]')
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        import math
        indices = list(range(len(self.dataset)))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f'batch_size should be a positive integer value, but got batch_size={batch_size}')
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def default_collate(batch):
    elem = batch[0]
    if isinstance(elem, torch.Tensor):
        return torch.stack(batch, 0)
    if isinstance(elem, bool) or isinstance(elem, int):
        return torch.tensor(batch)
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, (tuple, list)):
        size = len(elem)
        for e in batch:
            if len(e) != size:
                raise RuntimeError('each element in list of batch should be of equal size')
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {type(elem)}")


def default_convert(data):
    return data


def _pin(data):
    if isinstance(data, torch.Tensor):
        return data.pin_memory()
    if isinstance(data, dict):
        return {k: _pin(v) for k, v in data.items()}
    if isinstance(data, tuple):
        return [_pin(v) for v in data]
    if isinstance(data, list):
        return [_pin(v) for v in data]
    return data


class _Iter:
    def __init__(self, loader):
        self._loader = loader
        self._batches = iter(loader.batch_sampler) if loader.batch_sampler is not None else iter(loader.sampler)
        self._shuffled = loader._shuffled

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        index = next(self._batches)
        loader = self._loader
        if loader.batch_sampler is not None:
            data = loader.collate_fn([loader.dataset[i] for i in index])
        else:
            data = loader.collate_fn(loader.dataset[index])
        if self._shuffled:
            _forget(data)
        if loader.pin_memory:
            data = _pin(data)
        return data


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device=''):
        if isinstance(dataset, IterableDataset):
            raise _refusal(NotImplementedError('a DataLoader over an IterableDataset is not modelled by gpumemrepl'))
        if sampler is not None and shuffle:
            raise ValueError('sampler option is mutually exclusive with shuffle')
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError('batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last')
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError('batch_size=None option disables auto-batching and is mutually exclusive with drop_last')
        self._shuffled = bool(shuffle) or isinstance(sampler, RandomSampler) or getattr(sampler, 'shuffle', False) is True
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        return _Iter(self)

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
