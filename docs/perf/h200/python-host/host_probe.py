"""Host work per call of convlive's Python entry points (tiny batch: the GPU never waits), and the
back-to-back time of the (16,3,512,512) f32 r=8 batch. Usage: python3 pyprobe.py LABEL"""
import sys, time, json
import numpy as np, cupy as cp
import convlive
label = sys.argv[1]
r = 8
sigma = 0.3 * (r - 1) + 0.8
k = np.arange(-r, r + 1); g = np.exp(-(k * k) / (2 * sigma * sigma)); g /= g.sum()
w = [float(v) for v in g.astype(np.float32)]
s = cp.cuda.get_current_stream()
res = {"label": label, "version": convlive.__version__}

def per_call(fn, n=2000, reps=5):
    best = []
    for _ in range(reps):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        cp.cuda.Device().synchronize()
        best.append((t1 - t) / n * 1e6)
    return round(float(np.median(best)), 2)

for shape_name, shape in (("tiny", (1, 1, 16, 16)), ("batch", (16, 3, 512, 512))):
    x = cp.random.random(shape, dtype=cp.float32); o = cp.empty_like(x)
    tx = None
    cases = {
        "filter_weights_lists": lambda: convlive.filter(x, out=o, layout="NCHW", mask="custom", row_weights=w,
                                                       col_weights=w, border="clamp", stream=s),
        "filter_gaussian": lambda: convlive.filter(x, out=o, layout="NCHW", mask="gaussian", radius=r, stream=s),
        "filter_gaussian_nostream": lambda: convlive.filter(x, out=o, layout="NCHW", mask="gaussian", radius=r),
    }
    if hasattr(convlive, "Filter"):
        f = convlive.Filter(mask="custom", row_weights=w, col_weights=w, border="clamp")
        cases["Filter_weights"] = lambda: f(x, out=o, layout="NCHW", stream=s)
        cases["Filter_weights_nostream"] = lambda: f(x, out=o, layout="NCHW")
        try:
            import torch
            tx = torch.as_tensor(x, device="cuda"); to = torch.empty_like(tx)
            ts = torch.cuda.current_stream()
            cases["Filter_torch"] = lambda: f(tx, out=to, stream=ts)
        except Exception as e:
            res["torch_error"] = str(e)
    cases["cai_read"] = lambda: x.__cuda_array_interface__
    cases["copy_cupy"] = lambda: o.__setitem__(Ellipsis, x)
    n = 2000 if shape_name == "tiny" else 300
    for name, fn in cases.items():
        for _ in range(20):
            fn()
        res[f"{shape_name}.{name}_us"] = per_call(fn, n)
    print(json.dumps(res), flush=True)
print(json.dumps(res))
