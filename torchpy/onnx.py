# torch.onnx in eager code: model code asks whether it is being exported
# (never, here); exporting traces the model into an ONNX file, which the
# tool does not do.


def is_in_onnx_export():
    return False


def export(model, args=(), f=None, *pos, **kwargs):
    raise _refusal(NotImplementedError('torch.onnx.export is not modelled by gpumemrepl: it traces the model into an ONNX file'))


_export = export
