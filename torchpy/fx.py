# torch.fx as eager PyTorch sees it: wrap marks a function to stay a leaf
# when FX traces; eager code never traces, so it is the function itself.


def wrap(fn_or_name):
    return fn_or_name
