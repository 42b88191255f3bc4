#!/usr/bin/env python3
"""Write the public names of PyTorch's main namespaces, one namespace a
line: the namespace, a tab, its names sorted and separated by spaces.
gpumemrepl embeds the file (torchpy/pytorch_names.txt) so that an
attribute PyTorch has and the tool does not model says so.

    python3 scripts/record_names.py > torchpy/pytorch_names.txt

(on the GPU machine, whose PyTorch is the one the tool models)
"""
import sys

import torch
import torch.nn
import torch.nn.functional
import torch.optim
import torch.autograd
import torch.cuda
import torch.utils.data

NAMESPACES = {
    "torch": torch,
    "torch.Tensor": torch.Tensor,
    "torch.nn": torch.nn,
    "torch.nn.Module": torch.nn.Module,
    "torch.nn.functional": torch.nn.functional,
    "torch.optim": torch.optim,
    "torch.autograd": torch.autograd,
    "torch.cuda": torch.cuda,
    "torch.utils.data": torch.utils.data,
}


def main():
    print("# public names of PyTorch %s (Python %s), by namespace" % (torch.__version__, sys.version.split()[0]))
    for ns, obj in NAMESPACES.items():
        names = sorted(n for n in dir(obj) if not n.startswith("_"))
        print(ns + "\t" + " ".join(names))


if __name__ == "__main__":
    main()
