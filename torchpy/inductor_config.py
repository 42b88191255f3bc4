# torch._inductor.config: settings model code sets before torch.compile
# (nanoGPT's and litgpt's). torch.compile runs the model eagerly here, so
# they change no figure; they hold PyTorch 2.11's defaults.
import os

coordinate_descent_tuning = False


class triton:
    unique_kernel_names = os.environ.get('TORCHINDUCTOR_UNIQUE_KERNEL_NAMES', '1') == '1'
