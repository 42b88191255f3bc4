# torch._dynamo.config: settings model code sets before torch.compile.
# torch.compile runs the model eagerly here, so they change no figure;
# they hold PyTorch 2.11's defaults.
automatic_dynamic_shapes = True
suppress_errors = False
