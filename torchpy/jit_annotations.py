# torch.jit.annotations: the typing names TorchScript code imports from it.
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

BroadcastingList1 = List
BroadcastingList2 = List
BroadcastingList3 = List
