"""What the CUDA driver refuses of the calls the tool's devices make:
each case calls libcuda through ctypes on device 0 and records the
CUresult, so that the simulated device (allocator/device/sim) is held
to what the driver enforces (sim.Device.Access, MapPages, UnmapPages,
Free). Cases on two devices run where the machine has two.

    python3 scripts/probe_driver_checks.py OUT.json
    python3 scripts/probe_driver_checks.py --dry-run   # no GPU: the cases

Each case runs in a process of its own (an illegal address poisons a
context), making what it needs and leaving it to the process's end.

OUT.json: {"driver": version, "devices": n, "granularity": bytes,
"cases": [{"name", "call", "rc", "error"}]}, rc 0 where the driver
accepted the call.
"""

import ctypes
import json
import subprocess
import sys

MIB = 1 << 20


class Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class AllocProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("handle_types", ctypes.c_int), ("location", Location),
                ("win32", ctypes.c_void_p), ("flags", ctypes.c_ubyte * 8)]


class AccessDesc(ctypes.Structure):
    _fields_ = [("location", Location), ("flags", ctypes.c_int)]


class Driver:
    """libcuda's calls of the cases, each returning its CUresult."""

    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        assert self.cu.cuInit(0) == 0
        self.ctx = {}

    def error(self, rc):
        s = ctypes.c_char_p()
        self.cu.cuGetErrorName(rc, ctypes.byref(s))
        return s.value.decode() if s.value else str(rc)

    def devices(self):
        n = ctypes.c_int()
        assert self.cu.cuDeviceGetCount(ctypes.byref(n)) == 0
        return n.value

    def use(self, i):
        if i not in self.ctx:
            dev, ctx = ctypes.c_int(), ctypes.c_void_p()
            assert self.cu.cuDeviceGet(ctypes.byref(dev), i) == 0
            assert self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
            self.ctx[i] = ctx
        assert self.cu.cuCtxSetCurrent(self.ctx[i]) == 0

    def prop(self, i):
        return AllocProp(type=1, location=Location(type=1, id=i))

    def granularity(self):
        g = ctypes.c_size_t()
        p = self.prop(0)
        assert self.cu.cuMemGetAllocationGranularity(ctypes.byref(g), ctypes.byref(p), 0) == 0
        return g.value

    def alloc(self, size):
        p = ctypes.c_uint64()
        rc = self.cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(size))
        assert rc == 0, rc
        return p.value

    def free(self, p):
        return self.cu.cuMemFree_v2(ctypes.c_uint64(p))

    def memset8(self, p, n):
        rc = self.cu.cuMemsetD8_v2(ctypes.c_uint64(p), ctypes.c_ubyte(0), ctypes.c_size_t(n))
        return rc or self.cu.cuCtxSynchronize()

    def memset32(self, p, n):
        rc = self.cu.cuMemsetD32_v2(ctypes.c_uint64(p), ctypes.c_uint(0), ctypes.c_size_t(n))
        return rc or self.cu.cuCtxSynchronize()

    def copy(self, dst, src, n):
        rc = self.cu.cuMemcpy(ctypes.c_uint64(dst), ctypes.c_uint64(src), ctypes.c_size_t(n))
        return rc or self.cu.cuCtxSynchronize()

    def copy_out(self, src, n):
        buf = ctypes.create_string_buffer(n)
        return self.cu.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(src), ctypes.c_size_t(n))

    def reserve(self, size):
        p = ctypes.c_uint64()
        rc = self.cu.cuMemAddressReserve(ctypes.byref(p), ctypes.c_size_t(size), ctypes.c_size_t(0), ctypes.c_uint64(0), ctypes.c_ulonglong(0))
        assert rc == 0, rc
        return p.value

    def map(self, p, size, dev=0):
        """cuMemCreate + cuMemMap (+ cuMemSetAccess where it mapped)."""
        h = ctypes.c_ulonglong()
        prop = self.prop(dev)
        rc = self.cu.cuMemCreate(ctypes.byref(h), ctypes.c_size_t(size), ctypes.byref(prop), ctypes.c_ulonglong(0))
        if rc:
            return rc
        rc = self.cu.cuMemMap(ctypes.c_uint64(p), ctypes.c_size_t(size), ctypes.c_size_t(0), h, ctypes.c_ulonglong(0))
        if rc:
            self.cu.cuMemRelease(h)
            return rc
        acc = AccessDesc(location=Location(type=1, id=dev), flags=3)
        return self.cu.cuMemSetAccess(ctypes.c_uint64(p), ctypes.c_size_t(size), ctypes.byref(acc), ctypes.c_size_t(1))

    def unmap(self, p, size):
        return self.cu.cuMemUnmap(ctypes.c_uint64(p), ctypes.c_size_t(size))

    def release(self, p, size):
        return self.cu.cuMemAddressFree(ctypes.c_uint64(p), ctypes.c_size_t(size))


def cases(devices):
    """(name, call, f) of each case: f(d, g) makes what the case needs
    and returns the CUresult of the call probed (set-up calls assert)."""
    out = []

    def add(name, call):
        def wrap(f):
            out.append((name, call, f))
            return f
        return wrap

    two = lambda d: (d.alloc(2 * MIB), d.alloc(2 * MIB))
    add("memset inside an allocation", "cuMemsetD8_v2")(lambda d, g: d.memset8(d.alloc(2 * MIB), 2 * MIB))
    add("memset one byte past an allocation", "cuMemsetD8_v2")(lambda d, g: d.memset8(d.alloc(2 * MIB) + 2 * MIB - 8, 9))
    add("memset of twice an allocation", "cuMemsetD8_v2")(lambda d, g: d.memset8(d.alloc(2 * MIB), 4 * MIB))
    add("memset at an odd address", "cuMemsetD8_v2")(lambda d, g: d.memset8(d.alloc(2 * MIB) + 1, 16))
    add("memset of 32-bit values at an address not a multiple of 4", "cuMemsetD32_v2")(lambda d, g: d.memset32(d.alloc(2 * MIB) + 2, 4))
    add("copy inside an allocation", "cuMemcpy")(lambda d, g: (lambda a: d.copy(a, a + MIB, MIB))(d.alloc(2 * MIB)))
    add("copy reading past an allocation, into the one made after it", "cuMemcpy")(lambda d, g: (lambda a, b: d.copy(b, a + MIB, 2 * MIB))(*two(d)))
    add("copy writing past an allocation, into the one made after it", "cuMemcpy")(lambda d, g: (lambda a, b: d.copy(a + MIB, b, 2 * MIB))(*two(d)))
    add("copy to the host past an allocation", "cuMemcpyDtoH_v2")(lambda d, g: d.copy_out(d.alloc(2 * MIB) + MIB, 2 * MIB))
    add("copy at odd addresses", "cuMemcpy")(lambda d, g: (lambda a, b: d.copy(a + 3, b + 5, 1000))(*two(d)))
    add("free inside an allocation", "cuMemFree_v2")(lambda d, g: d.free(d.alloc(2 * MIB) + 512))
    add("free of 0", "cuMemFree_v2")(lambda d, g: d.free(0))

    @add("free twice", "cuMemFree_v2")
    def _(d, g):
        p = d.alloc(2 * MIB)
        assert d.free(p) == 0
        return d.free(p)

    @add("memset of a freed allocation", "cuMemsetD8_v2")
    def _(d, g):
        p = d.alloc(2 * MIB)
        assert d.free(p) == 0
        return d.memset8(p, 16)

    add("free of a reservation", "cuMemFree_v2")(lambda d, g: d.free(d.reserve(8 * g)))

    def mapped(d, g):
        r = d.reserve(8 * g)
        assert d.map(r, 2 * g) == 0
        return r

    add("map 2 granules of a reservation", "cuMemMap")(lambda d, g: d.map(d.reserve(8 * g), 2 * g))
    add("map a mapped granule again", "cuMemMap")(lambda d, g: d.map(mapped(d, g) + g, g))
    add("map past the reservation's end", "cuMemMap")(lambda d, g: d.map(d.reserve(8 * g) + 7 * g, 2 * g))
    add("map outside any reservation", "cuMemMap")(lambda d, g: d.map(d.reserve(8 * g) + 64 * g, g))
    add("map off the granularity", "cuMemMap")(lambda d, g: d.map(d.reserve(8 * g) + 4096 + 4 * g, g))
    add("memset across 2 mapped granules", "cuMemsetD8_v2")(lambda d, g: d.memset8(mapped(d, g) + 100, 2 * g - 100))
    add("memset past the mapped granules", "cuMemsetD8_v2")(lambda d, g: d.memset8(mapped(d, g) + g, 2 * g))
    add("unmap the whole mapping", "cuMemUnmap")(lambda d, g: d.unmap(mapped(d, g), 2 * g))
    add("unmap half of a mapping", "cuMemUnmap")(lambda d, g: d.unmap(mapped(d, g), g))
    add("unmap off the granularity", "cuMemUnmap")(lambda d, g: d.unmap(mapped(d, g) + 4096, g))
    add("unmap granules never mapped", "cuMemUnmap")(lambda d, g: d.unmap(mapped(d, g) + 4 * g, 2 * g))
    add("unmap a mapping and granules never mapped", "cuMemUnmap")(lambda d, g: d.unmap(mapped(d, g), 4 * g))
    add("free a reservation whose pages are mapped", "cuMemAddressFree")(lambda d, g: d.release(mapped(d, g), 8 * g))
    add("free a reservation with another size", "cuMemAddressFree")(lambda d, g: d.release(d.reserve(8 * g), 4 * g))
    if devices > 1:
        def other(d):
            d.use(1)
            p = d.alloc(2 * MIB)
            d.use(0)
            return p

        add("memset of device 1's memory from device 0", "cuMemsetD8_v2")(lambda d, g: d.memset8(other(d), 16))
        add("copy device 1 to device 0", "cuMemcpy")(lambda d, g: d.copy(d.alloc(2 * MIB), other(d), 16))
        add("free device 1's pointer from device 0", "cuMemFree_v2")(lambda d, g: d.free(other(d)))
    return out


def run_case(k):
    """Runs case k in this process (a fresh one: an illegal address
    would poison the context for the cases after it) and prints its row."""
    d = Driver()
    d.use(0)
    g = d.granularity()
    name, call, f = cases(d.devices())[k]
    try:
        rc = f(d, g)
        row = {"name": name, "call": call, "rc": rc, "error": d.error(rc) if rc else ""}
    except AssertionError as e:
        row = {"name": name, "call": call, "rc": -1, "error": f"set-up failed: {e}"}
    print(json.dumps(row))


def main():
    if sys.argv[1:] == ["--dry-run"]:
        for name, call, _ in cases(2):
            print(f"{call:22} {name}")
        return
    if sys.argv[1] == "--case":
        run_case(int(sys.argv[2]))
        return
    d = Driver()
    d.use(0)
    g, n = d.granularity(), d.devices()
    ver = ctypes.c_int()
    d.cu.cuDriverGetVersion(ctypes.byref(ver))
    rows = []
    for k, (name, call, _) in enumerate(cases(n)):
        p = subprocess.run([sys.executable, __file__, "--case", str(k)], capture_output=True, text=True, timeout=60)
        try:
            rows.append(json.loads(p.stdout.strip().splitlines()[-1]))
        except (IndexError, ValueError):
            rows.append({"name": name, "call": call, "rc": -1, "error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}"})
    with open(sys.argv[1], "w") as w:
        json.dump({"driver": ver.value, "devices": n, "granularity": g, "cases": rows}, w, indent=1)


if __name__ == "__main__":
    main()
