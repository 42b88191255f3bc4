# torch.distributed.tensor.parallel's plans, as model code builds them
# (Llama's tensor-parallel example); applying one (parallelize_module)
# needs a device mesh, which the tool, running one process, never has.


class ParallelStyle:
    pass


class ColwiseParallel(ParallelStyle):
    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        import torch.distributed.tensor as dt
        self.input_layouts = (input_layouts or dt.Replicate(),)
        self.output_layouts = (output_layouts or dt.Shard(-1),)
        self.use_local_output = use_local_output


class RowwiseParallel(ParallelStyle):
    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        import torch.distributed.tensor as dt
        self.input_layouts = (input_layouts or dt.Shard(-1),)
        self.output_layouts = (output_layouts or dt.Replicate(),)
        self.use_local_output = use_local_output


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    raise _refusal(NotImplementedError('torch.distributed.tensor.parallel.parallelize_module is not modelled by gpumemrepl: it needs a '
                                       'device mesh, and the tool runs one process, without a process group'))
