"""Tests of the convlive Python module (app/python), plain unittest.

Run: PYTHONPATH=<build>/app/python python3 -m unittest tests/test_python.py -v
(ctest does this with the module it built). Self-contained: it needs only the module and NumPy; the GPU
tests also need a CUDA device and CuPy or PyTorch, and are skipped with the reason without them.

- The cpu variant (the library's reference) against an independent NumPy correlation with the four
  border modes, within 1 LSB.
- Every other host variant (cpu-simd, ...) against cpu, within 1 LSB.
- Bad inputs and settings raise with messages that name what is wrong.
- On a GPU: every GPU variant that can run the filter, on CuPy arrays (through __cuda_array_interface__
  and through DLPack), PyTorch tensors (on a stream of their own) and NumPy arrays (upload, filter,
  download), against cpu on the host copy within 1 LSB, the output poisoned before each run.
"""

import contextlib
import os
import unittest

import numpy as np

import convlive

BORDERS = ("zero", "clamp", "mirror", "wrap")
# (height, width): odd sizes, one pixel, frames smaller than the mask, not multiples of any tile.
SIZES = ((23, 37), (65, 129), (1, 1), (3, 2), (7, 1))
POISON = 0x5A


def frame(height, width, seed):
    return np.random.default_rng(seed).integers(0, 256, (height, width, 4), dtype=np.uint8)


def max_diff(a, b):
    return int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max())


# ---- An independent reference: correlation, as OpenCV's filter2D (weight [0][0] on the top-left neighbour)


def border_index(i, n, border):
    """Indices read for positions i of an axis of length n, and where they read zero."""
    inside = (i >= 0) & (i < n)
    if border == "zero":
        return np.clip(i, 0, n - 1), ~inside
    if border == "clamp":
        return np.clip(i, 0, n - 1), np.zeros_like(inside)
    if border == "mirror":  # reflect-101: cb|abcd|cb
        if n == 1:
            return np.zeros_like(i), np.zeros_like(inside)
        period = 2 * n - 2
        m = np.mod(i, period)
        return np.where(m < n, m, period - m), np.zeros_like(inside)
    return np.mod(i, n), np.zeros_like(inside)  # wrap


def correlate(img, weights, border, filter_alpha):
    weights = np.asarray(weights, dtype=np.float64)
    acc = correlate_plane(img.astype(np.float64), weights, border)
    out = np.clip(np.rint(acc), 0, 255).astype(np.uint8)
    if not filter_alpha:
        out[..., 3] = img[..., 3]
    return out


def gaussian_weights(radius):
    sigma = 0.3 * (radius - 1) + 0.8
    k = np.arange(-radius, radius + 1)
    g = np.exp(-(k * k) / (2 * sigma * sigma))
    g /= g.sum()
    return np.outer(g, g)


# Settings for the variant comparisons: separable and 2D, Abs and Magnitude combines, sums past 255.
ASYMMETRIC = [[1, 0, 0], [0, 0, 0], [0, 3, 2]]  # catches a flipped (convolution) or transposed mask
MASKS = (
    dict(mask="gaussian", radius=1),
    dict(mask="gaussian", radius=3),
    dict(mask="box", radius=2),
    dict(mask="sobel", radius=1),
    dict(mask="custom", weights=ASYMMETRIC, normalize=True),
    dict(mask="custom", weights="0,-1,0;-1,5,-1;0,-1,0"),
    dict(mask="pitch", pitch=2.4),
    dict(mask="pitch", pitch=1.5, direction="vertical"),
)


def host_variants():
    return [v["name"] for v in convlive.variants() if not v["on_gpu"]]


def gpu_variants():
    return [v["name"] for v in convlive.variants() if v["on_gpu"]]


def can_run(variant, width, height, settings):
    return convlive.choose(width, height, variant=variant, **settings)["why_not"] is None


class TablesTest(unittest.TestCase):
    def test_version_and_device(self):
        self.assertIsInstance(convlive.__version__, str)
        d = convlive.device()
        self.assertIsInstance(d.available, bool)
        if not d.available:
            self.assertTrue(d.reason)

    def test_variants_table(self):
        table = convlive.variants()
        names = [v["name"] for v in table]
        self.assertIn("cpu", names)
        for v in table:
            self.assertTrue(v["description"])
            self.assertGreaterEqual(v["max_radius"], 1)
            for t in v["tiles"]:
                self.assertEqual(len(t), 2)

    def test_every_setting_is_a_keyword(self):
        settings = convlive.spec_settings()
        self.assertIn("filter_alpha", [s["keyword"] for s in settings])
        for s in settings:
            self.assertNotIn("-", s["keyword"])
            if s["type"] == "text" and not s["default"]:
                continue  # an empty weights text is refused; the others unset
            # The default of each setting is taken back as its keyword's value.
            self.assertEqual(convlive.describe(**{s["keyword"]: s["default"]}), convlive.describe())
        choices = {s["keyword"]: s["choices"] for s in settings}
        self.assertEqual(set(choices["variant"]), {"auto", *[v["name"] for v in convlive.variants()]})
        self.assertEqual(choices["border"], list(BORDERS))

    def test_describe(self):
        self.assertEqual(convlive.describe(mask="box", radius=2), "box r=2 border=clamp variant=auto")
        self.assertIn("filter-alpha=true", convlive.describe(filter_alpha=True))

    def test_auto_runs_where_it_can(self):
        c = convlive.choose(37, 23, mask="gaussian", radius=4)
        self.assertIn(c["variant"], [v["name"] for v in convlive.variants()])
        self.assertIsNone(c["why_not"])
        if not convlive.device().available:
            self.assertIn(c["variant"], host_variants())


class ReferenceTest(unittest.TestCase):
    """cpu, the library's reference, against the NumPy correlation above."""

    def check(self, settings, weights):
        for i, (h, w) in enumerate(SIZES):
            img = frame(h, w, i)
            for border in BORDERS:
                for alpha in (False, True):
                    with self.subTest(size=(h, w), border=border, filter_alpha=alpha, **settings):
                        got = convlive.filter(img, variant="cpu", border=border, filter_alpha=alpha, **settings)
                        want = correlate(img, weights, border, alpha)
                        self.assertLessEqual(max_diff(got, want), 1)

    def test_gaussian(self):
        for r in (1, 2, 4):
            self.check(dict(mask="gaussian", radius=r), gaussian_weights(r))

    def test_custom_weights(self):
        w = np.asarray(ASYMMETRIC, dtype=np.float64)
        self.check(dict(mask="custom", weights=w, normalize=True), w / w.sum())
        rng = np.random.default_rng(7)
        w5 = rng.uniform(-1, 1, (5, 5))
        self.check(dict(mask="custom", weights=w5), w5)
        self.check(dict(mask="custom", weights=";".join(",".join(repr(float(x)) for x in row) for row in w5)), w5)

    def test_separable_factors(self):
        col, row = np.array([1.0, 2.0, 1.0]), np.array([1.0, 4.0, 6.0, 4.0, 1.0])
        self.check(dict(mask="custom", row_weights=row, col_weights=col, normalize=True),
                   np.outer(np.pad(col, 1), row) / (col.sum() * row.sum()))

    def test_a_repeated_spec_is_checked_as_the_first_time(self):
        # The module remembers the specs that passed its checks (a call's host work); one that
        # differs only by a setting the checks refuse is refused every time, with the same reason.
        img = frame(9, 11, 5)
        first = convlive.filter(img, variant="cpu", mask="gaussian", radius=2)
        for _ in range(3):
            self.assertTrue(np.array_equal(convlive.filter(img, variant="cpu", mask="gaussian", radius=2), first))
            with self.assertRaises(ValueError) as ctx:
                convlive.filter(img, variant="cpu", mask="gaussian", radius=2, tile="32x8")
            self.assertIn("cpu has no tile shapes", str(ctx.exception))

    def test_default_is_gaussian_radius_1(self):
        img = frame(23, 37, 3)
        self.assertTrue(np.array_equal(convlive.filter(img, variant="cpu"),
                                       convlive.filter(img, variant="cpu", mask="gaussian", radius=1)))


class HostVariantsTest(unittest.TestCase):
    """Every host variant but cpu against cpu, and auto against cpu."""

    def test_host_variants_match_cpu(self):
        others = [n for n in host_variants() if n != "cpu"]
        if not others:
            self.skipTest("the table has no host variant besides cpu")
        for name in others:
            for i, (h, w) in enumerate(SIZES):
                img = frame(h, w, 10 + i)
                for settings in MASKS:
                    for border in BORDERS:
                        for alpha in (False, True):
                            s = dict(settings, border=border, filter_alpha=alpha)
                            if not can_run(name, w, h, s):
                                continue
                            with self.subTest(variant=name, size=(h, w), **s):
                                want = convlive.filter(img, variant="cpu", **s)
                                got = convlive.filter(img, variant=name, **s)
                                self.assertLessEqual(max_diff(got, want), 1)

    def test_auto(self):
        img = frame(65, 129, 5)
        for settings in MASKS:
            with self.subTest(**settings):
                want = convlive.filter(img, variant="cpu", **settings)
                self.assertLessEqual(max_diff(convlive.filter(img, **settings), want), 1)


class HostArraysTest(unittest.TestCase):
    def test_new_array(self):
        img = frame(23, 37, 1)
        img_before = img.copy()
        out = convlive.filter(img, mask="box", radius=2)
        self.assertEqual((out.shape, out.dtype), (img.shape, np.uint8))
        self.assertTrue(out.flags.c_contiguous)
        self.assertTrue(np.array_equal(img, img_before))  # the input is left alone

    def test_out(self):
        img = frame(23, 37, 2)
        out = np.full_like(img, POISON)
        got = convlive.filter(img, mask="sobel", out=out, variant="cpu")
        self.assertIs(got, out)
        self.assertTrue(np.array_equal(out, convlive.filter(img, mask="sobel", variant="cpu")))

    def test_padded_rows(self):
        img = frame(23, 37, 3)
        padded_in = np.zeros((23, 40, 4), np.uint8)[:, :37]  # rows 160 bytes apart
        padded_in[:] = img
        padded_out = np.full((23, 41, 4), POISON, np.uint8)[:, :37]
        got = convlive.filter(padded_in, mask="gaussian", radius=2, out=padded_out)
        self.assertIs(got, padded_out)
        self.assertTrue(np.array_equal(padded_out, convlive.filter(img, mask="gaussian", radius=2)))
        # the padding is untouched
        self.assertTrue((padded_out.base[:, 37:] == POISON).all())

    def test_read_only_input(self):
        img = frame(9, 11, 4)
        img.setflags(write=False)
        self.assertEqual(convlive.filter(img).shape, img.shape)

    def test_buffer_objects(self):
        img = frame(5, 6, 5)
        self.assertTrue(np.array_equal(convlive.filter(memoryview(img)), convlive.filter(img)))

    def test_stream_on_host(self):
        img = frame(5, 6, 6)
        self.assertTrue(np.array_equal(convlive.filter(img, stream=0), convlive.filter(img)))
        self.assertTrue(np.array_equal(convlive.filter(img, stream=None), convlive.filter(img)))


class FilterObjectTest(unittest.TestCase):
    """convlive.Filter: settings checked once, then called as filter() is."""

    def test_same_as_filter(self):
        img = frame(23, 37, 40)
        grey = np.random.default_rng(41).random((2, 3, 19, 21), dtype=np.float32)
        for s in MASKS + (dict(mask="custom", row_weights=[1, 2, 3, 2, 1], col_weights="1,0,-1", border="wrap"),):
            f = convlive.Filter(**s)
            with self.subTest(**s):
                out = np.full_like(img, POISON)
                self.assertIs(f(img, out=out), out)
                self.assertTrue(np.array_equal(out, convlive.filter(img, **s)))
                if s["mask"] != "pitch":  # pitch is a uint8 RGBA filter
                    self.assertTrue(np.array_equal(f(grey, layout="NCHW"), convlive.filter(grey, layout="NCHW", **s)))
        f = convlive.Filter(mask="gaussian", radius=2)
        self.assertTrue(np.array_equal(f(img, dtype="float32"), convlive.filter(img, dtype="float32", mask="gaussian",
                                                                                 radius=2)))

    def test_settings_and_repr(self):
        self.assertEqual(repr(convlive.Filter()), "convlive.Filter()")
        self.assertEqual(convlive.Filter().settings, {})
        f = convlive.Filter(mask="box", radius=2, border="wrap", normalize=False, variant="naive", tile=(32, 8))
        self.assertEqual(f.settings, {"mask": "box", "radius": 2, "border": "wrap", "variant": "naive", "tile": "32x8"})
        self.assertEqual(repr(f), "convlive.Filter(mask='box', radius=2, border='wrap', variant='naive', tile='32x8')")
        self.assertEqual(f.describe(), convlive.describe(mask="box", radius=2, border="wrap", variant="naive",
                                                         tile=(32, 8)))
        g = convlive.Filter(mask="gaussian", radius=3, sigma=1.2345678, filter_alpha=True)
        self.assertEqual(g.settings, {"radius": 3, "sigma": 1.2345678, "filter_alpha": True})
        p = convlive.Filter(mask="pitch", pitch=2.0000002)  # 6 digits would write the default's "2"
        self.assertEqual(p.settings, {"mask": "pitch", "pitch": 2.0000002})
        for h in (f, g, p, convlive.Filter(mask="custom", weights=ASYMMETRIC, normalize=True)):
            self.assertEqual(convlive.Filter(**h.settings).describe(), h.describe())
            self.assertEqual(eval(repr(h), {"convlive": convlive}).settings, h.settings)

    def test_choose(self):
        f = convlive.Filter(mask="gaussian", radius=2)
        got = f.choose(37, 23, dtype="float32", channels=1)
        want = convlive.choose(37, 23, dtype="float32", channels=1, mask="gaussian", radius=2)
        for key in ("variant", "tile", "why_not"):  # why says "measured" then "cached" where auto times
            self.assertEqual(got[key], want[key], key)
        with self.assertRaisesRegex(ValueError, "unknown keyword 'radius'.*settings are the Filter's"):
            f.choose(37, 23, radius=3)

    def test_weights_file_read_when_made(self):
        import tempfile
        img = frame(23, 37, 42)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.txt")
            with open(path, "w") as fh:
                fh.write("0,1,0\n1,4,1\n0,1,0\n")
            f = convlive.Filter(mask="custom", weights_file=path, normalize=True)
            with open(path, "w") as fh:
                fh.write("1,0,0\n0,0,0\n0,0,0\n")
            want = convlive.filter(img, mask="custom", weights="0,1,0;1,4,1;0,1,0", normalize=True)
            self.assertTrue(np.array_equal(f(img), want))
            self.assertEqual(f.settings, {"mask": "custom", "weights": "0,1,0;1,4,1;0,1,0", "normalize": True})
            with self.assertRaisesRegex(ValueError, "missing.txt"):
                convlive.Filter(mask="custom", weights_file=os.path.join(d, "missing.txt"))
            # a mask other than custom reads no weights file, as filter()
            self.assertEqual(convlive.Filter(mask="box", weights_file=os.path.join(d, "missing.txt")).describe(),
                             convlive.describe(mask="box", weights_file=os.path.join(d, "missing.txt")))

    def test_pickle_copy_and_equality(self):
        import copy
        import pickle
        import tempfile
        img = frame(23, 37, 45)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.npy")
            np.save(path, np.array([[0.5, 0.25, 0.0], [0.125, 1.0, 0.0], [0.0, 0.0, 0.1]], np.float32))
            from_file = convlive.Filter(mask="custom", weights_file=path)
        # the file is gone: its numbers travel with the Filter
        for f in (convlive.Filter(), convlive.Filter(mask="sobel", border="mirror", filter_alpha=True),
                  convlive.Filter(mask="gaussian", radius=3, sigma=1.2345678), from_file):
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
                g = pickle.loads(pickle.dumps(f, protocol))
                with self.subTest(filter=repr(f), protocol=protocol):
                    self.assertEqual(g, f)
                    self.assertEqual(hash(g), hash(f))
                    self.assertEqual(g.settings, f.settings)
                    self.assertTrue(np.array_equal(g(img), f(img)))
            self.assertEqual(copy.deepcopy(f), f)
            self.assertEqual(copy.copy(f), f)
        self.assertNotEqual(convlive.Filter(radius=2), convlive.Filter(radius=3))
        self.assertNotEqual(convlive.Filter(), "convlive.Filter()")
        self.assertEqual(len({convlive.Filter(radius=2), convlive.Filter(radius=2), convlive.Filter()}), 2)

    def test_bad_keywords(self):
        img = frame(5, 6, 43)
        f = convlive.Filter(mask="box")
        with self.assertRaisesRegex(ValueError, "out: given to a call, not when the Filter is made"):
            convlive.Filter(mask="box", out=img)
        with self.assertRaisesRegex(ValueError, "radius: 99 is out of range"):
            convlive.Filter(radius=99)
        with self.assertRaisesRegex(ValueError, "unknown keyword 'bogus': a Filter takes the settings mask, "):
            convlive.Filter(bogus=1)
        with self.assertRaisesRegex(ValueError, r"radius: a Filter's settings are fixed when it is made.*Filter\(radius"):
            f(img, radius=2)
        with self.assertRaisesRegex(ValueError, "unknown keyword 'bogus': a Filter call takes out, dtype"):
            f(img, bogus=1)
        with self.assertRaises(TypeError):
            convlive.Filter("box")  # settings are keywords


class BadInputsTest(unittest.TestCase):
    def raises(self, exc, pieces, img, **kw):
        with self.assertRaises(exc) as ctx:
            convlive.filter(img, **kw)
        for p in pieces:
            self.assertIn(p, str(ctx.exception))

    def test_dtype(self):
        img = frame(5, 6, 0)
        self.raises(ValueError, ["float64 is not taken", "pass img.astype(numpy.float32)"], img.astype(np.float64))
        self.raises(ValueError, ["dtype int16", "img.astype(numpy.float32)"], img.astype(np.int16))
        self.raises(ValueError, ["dtype bool", "img.astype(numpy.uint8)"], img > 127)
        self.raises(ValueError, ["dtype uint32", "2**24"], img.astype(np.uint32))
        self.raises(ValueError, ["complex64", "real and imaginary"], img.astype(np.complex64))
        self.raises(ValueError, [">f4", "byte order"], img.astype(">f4"))
        # The hint works.
        self.assertEqual(convlive.filter(img.astype(np.float64).astype(np.float32)).dtype, np.float32)

    def test_shape(self):
        img = frame(5, 6, 0)
        self.raises(ValueError, ["shape (5, 6, 4, 1, 1)", "(N, C, H, W)"], img[..., None, None])
        self.raises(ValueError, ["shape (7,)"], np.zeros(7, np.uint8))
        self.raises(ValueError, ["shape (0, 6, 4)", "empty"], img[:0])

    def test_two_channels(self):
        img = frame(5, 6, 0)[..., :2].copy()
        with self.assertRaises(ValueError) as ctx:
            convlive.filter(img)
        msg = str(ctx.exception)
        for piece in ("shape (5, 6, 2)", "2 channels", "1, 3 or 4", "numpy.concatenate"):
            self.assertIn(piece, msg)
        # The hint works: a third channel added, filtered, dropped.
        padded = np.concatenate([img, np.zeros_like(img[..., :1])], axis=-1)
        got = convlive.filter(padded, variant="cpu")[..., :2]
        want = convlive.filter(np.ascontiguousarray(img[..., 0]), variant="cpu")
        self.assertTrue(np.array_equal(got[..., 0], want))
        planes = np.ascontiguousarray(np.moveaxis(img, -1, 0))  # (2, 5, 6)
        with self.assertRaises(ValueError) as ctx:
            convlive.filter(planes, layout="CHW")
        self.assertIn("reshape(-1, 1, 5, 6)", str(ctx.exception))
        got = convlive.filter(planes.reshape(-1, 1, 5, 6), layout="NCHW", variant="cpu")
        self.assertTrue(np.array_equal(got[0, 0], want))

    def test_layout(self):
        img = frame(5, 6, 0)
        self.raises(ValueError, ["layout: 'WHC' is not a layout", "'NCHW'"], img, layout="WHC")
        self.raises(ValueError, ["layout: 'HW' reads 2 dimensions", "shape (5, 6, 4)"], img, layout="HW")
        self.raises(TypeError, ["layout: expected a str"], img, layout=3)
        # (4, 5, 6) is read as (H, W, C) with 6 channels: the message says how to read it as (C, H, W).
        chw = np.zeros((4, 5, 6), np.uint8)
        self.raises(ValueError, ["6 channels", "channels-last by default", "layout='CHW'"], chw)
        self.assertEqual(convlive.filter(chw, layout="CHW").shape, chw.shape)

    def test_strides(self):
        img = frame(6, 8, 0)
        self.raises(ValueError, ["strides (32, 8, 1)", "pixels must be adjacent", "numpy.ascontiguousarray(img)"],
                    img[:, ::2])  # pixels 8 bytes apart
        self.raises(ValueError, ["strides (-32, 4, 1)", "negative"], img[::-1])
        self.raises(ValueError, ["strides", "channels of a pixel"], np.asfortranarray(img))
        buf = np.zeros(6 * 34, np.uint8)  # rows 34 bytes apart: not a multiple of 4
        odd = np.lib.stride_tricks.as_strided(buf, (6, 8, 4), (34, 4, 1))
        self.raises(ValueError, ["strides (34, 4, 1)", "multiple of 4"], odd)
        f32 = np.zeros((6, 8, 3), np.float32)
        every_other = np.zeros((6, 16, 3), np.float32)[:, ::2]
        self.raises(ValueError, ["strides (192, 24, 4)", "pixels must be adjacent"], every_other)
        self.raises(ValueError, ["values of a row must be adjacent"], f32.transpose(2, 0, 1)[:, :, :], layout="CHW")
        # Channels-first planes that are not one stride apart: three of four channels of a batch.
        nchw = np.zeros((2, 4, 5, 6), np.uint16)[:, :3]
        self.raises(ValueError, ["one stride apart", "numpy.ascontiguousarray(img)"], nchw, layout="NCHW")
        self.assertEqual(convlive.filter(np.ascontiguousarray(nchw), layout="NCHW").shape, nchw.shape)

    def test_unknown_keyword(self):
        img = frame(5, 6, 0)
        self.raises(ValueError, ["unknown keyword 'radious'", "radius", "filter_alpha"], img, radious=3)
        self.raises(ValueError, ["unknown keyword 'filter-alpha'"], img, **{"filter-alpha": True})

    def test_bad_values(self):
        img = frame(5, 6, 0)
        self.raises(ValueError, ["radius: 99 is out of range"], img, radius=99)
        self.raises(ValueError, ["border: 'bogus' is not a border mode"], img, border="bogus")
        self.raises(ValueError, ["variant: 'nope'"], img, variant="nope")
        self.raises(ValueError, ["mask: 'blur'"], img, mask="blur")
        self.raises(ValueError, ["sigma"], img, sigma=-1.0)
        self.raises(ValueError, ["weights"], img, mask="custom", weights="1,2;3")
        self.raises(ValueError, ["weights"], img, mask="custom")
        self.raises(ValueError, ["weights"], img, mask="custom", weights=np.ones((2, 2)))
        self.raises(ValueError, ["weights_file"], img, mask="custom", weights_file="/nonexistent/m.txt")
        self.raises(ValueError, ["tile"], img, variant="cpu", tile="32x8")

    def test_wrong_types(self):
        img = frame(5, 6, 0)
        self.raises(TypeError, ["radius", "int", "str"], img, radius="4")
        self.raises(TypeError, ["filter_alpha", "True or False"], img, filter_alpha=1)
        self.raises(TypeError, ["border", "str"], img, border=2)
        self.raises(TypeError, ["stream"], img, stream="default")

    def test_out(self):
        img = frame(5, 6, 0)
        self.raises(ValueError, ["in place"], img, out=img)
        self.raises(ValueError, ["in place"], img, out=img[:, :])
        self.raises(ValueError, ["differs"], img, out=np.zeros((5, 7, 4), np.uint8))
        self.raises(ValueError, ["out:", "dtype float16", "differs from img's uint8", "or float32"], img,
                    out=np.zeros((5, 6, 4), np.float16))
        ro = np.zeros_like(img)
        ro.setflags(write=False)
        self.raises(ValueError, ["read-only"], img, out=ro)
        self.raises(TypeError, ["numpy.ndarray"], img, out=[[0]])

    @unittest.skipIf(convlive.device().available, "a CUDA device is present")
    def test_gpu_variant_without_device(self):
        gpu = gpu_variants()
        if not gpu:
            self.skipTest("the table has no GPU variant")
        self.raises(ValueError, ["variant:", "use variant='cpu"], frame(5, 6, 0), variant=gpu[0])


# ---- Typed frames: uint8, uint16, float16, float32 in every layout ----------------------------------

DTYPES = (np.uint8, np.uint16, np.float16, np.float32)
# (height, width): one pixel, 5x3 (width x height), 37x23.
TYPED_SIZES = ((1, 1), (3, 5), (23, 37))
# Weights exact in float32 (powers of two): the library's float weights are the reference's.
EXACT_3x3 = np.array([[0.125, 0, -0.25], [0.5, 0.25, 0], [0, 0.375, 0.0625]])  # asymmetric, negative


def typed_frames(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if dtype == np.uint16:
        return rng.integers(0, 65536, shape, dtype=np.uint16)
    if dtype == np.float16:
        return rng.uniform(-4, 4, shape).astype(np.float16)
    return rng.uniform(-100, 100, shape).astype(np.float32)


# Layouts as (N, H, W, C) float64, and back.
TO_NHWC = {
    "HW": lambda a: a[None, :, :, None],
    "HWC": lambda a: a[None],
    "NHWC": lambda a: a,
    "CHW": lambda a: a.transpose(1, 2, 0)[None],
    "NCHW": lambda a: a.transpose(0, 2, 3, 1),
}
FROM_NHWC = {
    "HW": lambda a: a[0, :, :, 0],
    "HWC": lambda a: a[0],
    "NHWC": lambda a: a,
    "CHW": lambda a: a[0].transpose(2, 0, 1),
    "NCHW": lambda a: a.transpose(0, 3, 1, 2),
}


def shape_of(layout, n, c, h, w):
    return {"HW": (h, w), "HWC": (h, w, c), "NHWC": (n, h, w, c), "CHW": (c, h, w), "NCHW": (n, c, h, w)}[layout]


def correlate_plane(plane, weights, border):
    """float64 direct 2D correlation of an (H, W) plane or (H, W, C) pixels, weight [0][0] on the top-left neighbour."""
    r = weights.shape[0] // 2
    h, w = plane.shape[:2]
    acc = np.zeros(plane.shape)
    for dy in range(-r, r + 1):
        rows, zero_rows = border_index(np.arange(h) + dy, h, border)
        for dx in range(-r, r + 1):
            wt = weights[dy + r, dx + r]
            if wt == 0:
                continue
            cols, zero_cols = border_index(np.arange(w) + dx, w, border)
            sample = plane[rows][:, cols]
            sample[zero_rows] = 0
            sample[:, zero_cols] = 0
            acc += wt * sample
    return acc


def exact_result(img, layout, weights, border, filter_alpha):
    """The exact (float64, unrounded) result in img's layout; alpha (4 channels) copied unless filtered."""
    src = TO_NHWC[layout](img.astype(np.float64))
    acc = np.empty(src.shape)
    for n in range(src.shape[0]):
        for c in range(src.shape[3]):
            acc[n, :, :, c] = correlate_plane(src[n, :, :, c], weights, border)
    if src.shape[3] == 4 and not filter_alpha:
        acc[..., 3] = src[..., 3]
    return FROM_NHWC[layout](acc)


def half_ulps(a, b):
    """The distance of two float16 arrays in units in the last place."""
    def ordered(x):
        bits = x.astype(np.float16).view(np.uint16).astype(np.int32)
        return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)
    return int(np.abs(ordered(a) - ordered(b)).max())


class ContractCheck:
    """The accuracy contract against the exact result: integers within 1 LSB of the rounded, saturated
    result, float16 within 1 ulp of the correctly rounded result, float32 within 1e-5 x sum|w| x max|x|."""

    def assert_within_contract(self, got, img, exact, weights):
        self.assertEqual((got.dtype, got.shape), (img.dtype, img.shape))
        if img.dtype in (np.uint8, np.uint16):
            top = np.iinfo(img.dtype).max
            want = np.clip(np.rint(exact), 0, top)
            self.assertLessEqual(float(np.abs(got.astype(np.float64) - want).max()), 1)
        elif img.dtype == np.float16:
            self.assertLessEqual(half_ulps(got, exact.astype(np.float16)), 1)
        else:
            bound = 1e-5 * np.abs(weights).sum() * float(np.abs(img.astype(np.float64)).max())
            self.assertLessEqual(float(np.abs(got.astype(np.float64) - exact).max()), bound)


class TypedFramesTest(unittest.TestCase, ContractCheck):
    """Every dtype and layout against the float64 reference above (host arrays: cpu here, or a GPU
    variant through auto where there is a device)."""

    CASES = (  # layout, frames, channels
        ("HW", 1, 1), ("HWC", 1, 1), ("HWC", 1, 3), ("HWC", 1, 4), ("NHWC", 2, 3), ("NHWC", 2, 4),
        ("CHW", 1, 1), ("CHW", 1, 3), ("CHW", 1, 4), ("NCHW", 2, 3), ("NCHW", 2, 4),
    )

    def check(self, layout, n, c, dtype, size, border, filter_alpha, **kw):
        h, w = size
        img = typed_frames(shape_of(layout, n, c, h, w), dtype, seed=h * 7 + c)
        exact = exact_result(img, layout, EXACT_3x3, border, filter_alpha)
        got = convlive.filter(img, layout=layout, mask="custom", weights=EXACT_3x3, border=border,
                              filter_alpha=filter_alpha, **kw)
        self.assert_within_contract(got, img, exact, EXACT_3x3)
        return img, got

    def test_every_dtype_and_layout(self):
        for dtype in DTYPES:
            for layout, n, c in self.CASES:
                for size in TYPED_SIZES:
                    for border in BORDERS:
                        for alpha in ((False, True) if c == 4 else (False,)):
                            with self.subTest(dtype=dtype.__name__, layout=layout, n=n, c=c, size=size,
                                              border=border, filter_alpha=alpha):
                                self.check(layout, n, c, dtype, size, border, alpha)

    def test_inferred_layout(self):
        # NumPy arrays are channels-last: (H, W), (H, W, C), (N, H, W, C) need no layout=.
        for layout, shape in (("HW", (23, 37)), ("HWC", (23, 37, 3)), ("NHWC", (2, 23, 37, 4))):
            img = typed_frames(shape, np.float32, 1)
            with self.subTest(layout=layout):
                self.assertTrue(np.array_equal(convlive.filter(img, variant="cpu"),
                                               convlive.filter(img, variant="cpu", layout=layout)))

    def test_gaussian_and_separable(self):
        for dtype in DTYPES:
            img = typed_frames((23, 37, 3), dtype, 2)
            for r in (1, 3):
                with self.subTest(dtype=dtype.__name__, radius=r):
                    exact = exact_result(img, "HWC", gaussian_weights(r), "mirror", False)
                    got = convlive.filter(img, mask="gaussian", radius=r, border="mirror")
                    # the library's gaussian weights are floats: a float32-sized margin besides the contract
                    if dtype == np.float32:
                        self.assertLessEqual(float(np.abs(got - exact).max()), 2e-5 * float(np.abs(img).max()))
                    else:
                        self.assert_within_contract(got, img, exact, gaussian_weights(r))

    def test_auto_runs_every_dtype(self):
        for dtype in DTYPES:
            c = convlive.choose(37, 23, dtype=dtype, channels=3)
            self.assertIsNone(c["why_not"], c)
            if not convlive.device().available:
                self.assertIn(c["variant"], host_variants())
        c = convlive.choose(37, 23, dtype="uint16", channels=1, batch=6, mask="box", radius=2)
        self.assertIsNone(c["why_not"], c)

    def test_choose_refuses(self):
        with self.assertRaisesRegex(ValueError, r"float64 is not taken.*dtype='float32'"):
            convlive.choose(37, 23, dtype=np.float64)
        self.assertIn("2 channels", convlive.choose(37, 23, dtype="float32", channels=2)["why_not"])
        with self.assertRaisesRegex(TypeError, "channels: expected an int"):
            convlive.choose(37, 23, channels="3")
        rgba_only = [v["name"] for v in convlive.variants() if not v["on_gpu"] and v["name"] != "cpu"]
        for name in rgba_only:
            why = convlive.choose(37, 23, dtype="float32", channels=3, variant=name)["why_not"]
            if why is not None:  # a u8x4-only variant names one that takes the frames
                self.assertIn("use variant='cpu'", why)
            with self.assertRaisesRegex(ValueError, "use variant='cpu'") if why else contextlib.nullcontext():
                convlive.filter(np.zeros((23, 37, 3), np.float32), variant=name)

    def test_batch_with_padded_rows(self):
        """Frames and rows padded (a slice of a bigger array): filtered where they are, out= alike."""
        for dtype in DTYPES:
            for layout in ("NHWC", "NCHW"):
                full = (3, 25, 45, 3) if layout == "NHWC" else (3, 4, 25, 45)
                cut = (slice(0, 2), slice(0, 23), slice(0, 37)) if layout == "NHWC" else \
                    (slice(0, 2), slice(None), slice(0, 23), slice(0, 37))
                big = np.zeros(full, dtype)
                img = big[cut]
                img[...] = typed_frames(img.shape, dtype, 5)
                out_big = np.full(full, 7, dtype)
                out = out_big[cut]
                with self.subTest(dtype=dtype.__name__, layout=layout):
                    got = convlive.filter(img, out=out, layout=layout, mask="custom", weights=EXACT_3x3,
                                          border="wrap", filter_alpha=True)
                    self.assertIs(got, out)
                    exact = exact_result(np.ascontiguousarray(img), layout, EXACT_3x3, "wrap", True)
                    self.assert_within_contract(out, img, exact, EXACT_3x3)
                    untouched = np.ones(full, bool)
                    untouched[cut] = False
                    self.assertTrue((out_big[untouched] == 7).all())  # the padding is left alone
                    # no out=: a new C-contiguous array (filtered with img's strides, then copied)
                    new = convlive.filter(img, layout=layout, mask="custom", weights=EXACT_3x3, border="wrap",
                                          filter_alpha=True)
                    self.assertTrue(new.flags.c_contiguous)
                    self.assertTrue(np.array_equal(new, out))

    def test_out_of_another_layout(self):
        img = typed_frames((23, 37, 3), np.float32, 6)
        out = np.full((23, 40, 3), 5, np.float32)[:, :37]  # rows apart by other bytes than img's
        convlive.filter(img, out=out, variant="cpu", mask="box")
        self.assertTrue(np.array_equal(out, convlive.filter(img, variant="cpu", mask="box")))

    def test_rgba8_unchanged(self):
        """uint8 (H, W, 4) is filtered as before: the same as the RGBA8 reference of ReferenceTest."""
        img = frame(23, 37, 9)
        for border in BORDERS:
            got = convlive.filter(img, variant="cpu", border=border, mask="custom", weights=ASYMMETRIC, normalize=True)
            w = np.asarray(ASYMMETRIC, np.float64)
            self.assertLessEqual(max_diff(got, correlate(img, w / w.sum(), border, False)), 1)


class FloatOutputTest(unittest.TestCase):
    """uint8 img into float32 output (dtype="float32", or a float32 out=): the exact result within
    float32's bound, neither rounded nor clamped, in every layout; the refusals say what works."""

    CASES = (("HW", 1, 1), ("HWC", 1, 3), ("HWC", 1, 4), ("NHWC", 2, 4), ("CHW", 1, 3), ("NCHW", 2, 4))

    def check(self, got, img, exact):
        self.assertEqual((got.dtype, got.shape), (np.dtype(np.float32), img.shape))
        bound = 1e-5 * np.abs(EXACT_3x3).sum() * 255
        self.assertLessEqual(float(np.abs(got.astype(np.float64) - exact).max()), bound)

    def test_every_layout(self):
        for layout, n, c in self.CASES:
            for border in BORDERS:
                img = typed_frames(shape_of(layout, n, c, 23, 37), np.uint8, seed=c + n)
                alpha = layout in ("CHW", "NCHW")  # channels-first RGBA: alpha filtered (a copied plane is refused)
                exact = exact_result(img, layout, EXACT_3x3, border, alpha)
                s = dict(layout=layout, mask="custom", weights=EXACT_3x3, border=border, filter_alpha=alpha)
                with self.subTest(layout=layout, n=n, c=c, border=border):
                    got = convlive.filter(img, dtype="float32", **s)
                    self.check(got, img, exact)
                    out = np.full(img.shape, np.nan, np.float32)
                    self.assertIs(convlive.filter(img, out=out, **s), out)
                    self.check(out, img, exact)
                    self.assertTrue(np.array_equal(convlive.filter(img, dtype=np.float32, **s), got))

    def test_neither_rounded_nor_clamped(self):
        img = np.array([[0, 255, 0, 1, 0, 0]], np.uint8)
        got = convlive.filter(img, dtype="float32", mask="custom", weights="0,0,0;-1,3,-1;0,0,0")
        self.assertEqual(got[0, :2].tolist(), [-255.0, 765.0])
        box = convlive.filter(img, dtype="float32", mask="custom", weights="0,0,0;1,1,1;0,0,0", normalize=True)
        self.assertAlmostEqual(float(box[0, 4]), 1 / 3, places=6)

    def test_padded_rows(self):
        big = typed_frames((25, 45, 3), np.uint8, 3)
        img = big[:23, :37]
        exact = exact_result(np.ascontiguousarray(img), "HWC", EXACT_3x3, "wrap", False)
        got = convlive.filter(img, dtype="float32", mask="custom", weights=EXACT_3x3, border="wrap")
        self.check(got, img, exact)
        out = np.full((23, 40, 3), np.nan, np.float32)[:, :37]
        convlive.filter(img, out=out, mask="custom", weights=EXACT_3x3, border="wrap")
        self.check(out, img, exact)

    def test_refusals(self):
        img = typed_frames((23, 37, 3), np.uint8, 4)
        with self.assertRaisesRegex(ValueError, "float32 from uint8"):
            convlive.filter(img, dtype="float16")
        with self.assertRaisesRegex(ValueError, "float32 from uint8"):
            convlive.filter(img.astype(np.uint16), dtype="float32")
        with self.assertRaisesRegex(ValueError, "or float32"):
            convlive.filter(img, out=np.zeros(img.shape, np.float16))
        with self.assertRaisesRegex(ValueError, "alpha plane"):
            convlive.filter(typed_frames((4, 23, 37), np.uint8, 5), layout="CHW", dtype="float32")
        with self.assertRaisesRegex(ValueError, "writes frames of their own type.*variant="):
            convlive.filter(img, dtype="float32", variant="naive")
        self.assertEqual(convlive.filter(img, dtype="uint8").dtype, np.uint8)  # img's own: no change
        c = convlive.choose(37, 23, channels=3, out_dtype="float32")
        self.assertIsNone(c["why_not"], c)
        self.assertIn(c["variant"], ("stream", "sweep", "cpu-simd", "cpu"))
        self.assertIn("writes frames of their own type",
                      convlive.choose(37, 23, channels=3, out_dtype="float32", variant="naive")["why_not"])
        with self.assertRaisesRegex(ValueError, "out_dtype: float16 output from uint8 frames"):
            convlive.choose(37, 23, out_dtype="float16")
        # RGBA8 into float32: one plan over the batch, as filter() makes it
        self.assertIsNone(convlive.choose(37, 23, channels=4, batch=3, out_dtype="float32")["why_not"])
        with self.assertRaisesRegex(ValueError, "dtype=uint8 asks for img's dtype"):
            convlive.filter(img, dtype="uint8", out=np.zeros(img.shape, np.float32))


class StubTest(unittest.TestCase):
    """The type hints (app/python/convlive.pyi) cover the module."""

    @classmethod
    def setUpClass(cls):
        import ast
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app", "python", "convlive.pyi")
        with open(path) as f:
            cls.tree = ast.parse(f.read())
        cls.defs = {node.name: node for node in cls.tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        cls.names = set(cls.defs) | {t.id for node in cls.tree.body if isinstance(node, (ast.AnnAssign, ast.Assign))
                                     for t in ([node.target] if isinstance(node, ast.AnnAssign) else node.targets)
                                     if isinstance(t, ast.Name)}

    def test_every_public_name(self):
        public = [n for n in dir(convlive) if not n.startswith("_")] + ["__version__"]
        for name in public:
            self.assertIn(name, self.names)

    def test_every_keyword(self):
        keywords = {s["keyword"] for s in convlive.spec_settings()}
        for fn, extra in (("filter", {"out", "dtype", "stream", "layout", "device"}), ("describe", set()),
                          ("choose", {"dtype", "out_dtype", "channels", "batch", "device"})):
            args = {a.arg for a in self.defs[fn].args.kwonlyargs}
            self.assertEqual(args, keywords | extra, fn)

    def test_filter_class(self):
        import ast
        keywords = {s["keyword"] for s in convlive.spec_settings()}
        methods = {n.name: n for n in self.defs["Filter"].body if isinstance(n, ast.FunctionDef)}
        for method, extra in (("__init__", keywords), ("__call__", {"out", "dtype", "stream", "layout", "device"}),
                              ("choose", {"dtype", "out_dtype", "channels", "batch", "device"})):
            self.assertEqual({a.arg for a in methods[method].args.kwonlyargs}, extra, method)
        public = {n for n in dir(convlive.Filter) if not n.startswith("_")}
        self.assertEqual(public, {n for n in methods if not n.startswith("_")})

    def test_choices(self):
        import ast
        aliases = {node.targets[0].id: node.value for node in self.tree.body
                   if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
        choices = {s["keyword"]: s["choices"] for s in convlive.spec_settings()}
        for alias, keyword in (("Mask", "mask"), ("Border", "border")):
            values = [e.value for e in ast.walk(aliases[alias]) if isinstance(e, ast.Constant)]
            self.assertEqual(values, choices[keyword], alias)

    def test_installed_beside_the_module(self):
        here = os.path.dirname(os.path.abspath(convlive.__file__))
        self.assertTrue(os.path.exists(os.path.join(here, "convlive.pyi")), here)


class TorchHostTest(unittest.TestCase, ContractCheck):
    """torch CPU tensors: channels-first by default."""

    @classmethod
    def setUpClass(cls):
        cls.torch, why = _import("torch")
        if cls.torch is None:
            raise unittest.SkipTest(why)

    def test_channels_first_by_default(self):
        torch = self.torch
        for dtype in DTYPES:
            img = typed_frames((2, 3, 23, 37), dtype, 3)
            with self.subTest(dtype=dtype.__name__):
                try:
                    t = torch.from_numpy(img)
                except TypeError as e:  # uint16 arrived in torch 2.3
                    self.skipTest(f"this torch has no {dtype.__name__} tensors: {e}")
                got = convlive.filter(t, mask="custom", weights=EXACT_3x3)
                self.assertIsInstance(got, torch.Tensor)
                self.assert_within_contract(got.numpy(), img, exact_result(img, "NCHW", EXACT_3x3, "clamp", False),
                                            EXACT_3x3)
        hwc = torch.zeros((23, 37, 4), dtype=torch.uint8)
        with self.assertRaisesRegex(ValueError, "channels-first by default.*layout='HWC'"):
            convlive.filter(hwc)
        with self.assertRaisesRegex(ValueError, r"float64 is not taken.*img.to\(torch.float32\)"):
            convlive.filter(torch.zeros((3, 5, 6), dtype=torch.float64))


# ---- GPU: CuPy and PyTorch arrays ------------------------------------------------------------------


def _import(name):
    try:
        return __import__(name), ""
    except Exception as e:  # noqa: BLE001 (any failure to import means: skip, with the reason)
        return None, f"{name} cannot be imported ({type(e).__name__}: {e})"


DEVICE = convlive.device()
NO_DEVICE = "" if DEVICE.available else f"no CUDA device: {DEVICE.reason}"


class OnlyCAI:
    """Exposes only __cuda_array_interface__ (as Numba's device arrays do)."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


class OnlyDLPack:
    """Exposes only DLPack."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


# Fewer sizes and settings than the host tests: every GPU variant runs each.
GPU_SIZES = ((23, 37), (65, 129), (1, 1))


def gpu_cases():
    for i, (h, w) in enumerate(GPU_SIZES):
        img = frame(h, w, 100 + i)
        for settings in MASKS:
            for border in BORDERS:
                for alpha in (False, True):
                    yield img, dict(settings, border=border, filter_alpha=alpha)


@unittest.skipIf(NO_DEVICE, NO_DEVICE)
class CupyTest(unittest.TestCase, ContractCheck):
    @classmethod
    def setUpClass(cls):
        cls.cp, why = _import("cupy")
        if cls.cp is None:
            raise unittest.SkipTest(why)

    def run_variants(self, wrap):
        cp = self.cp
        ran = 0
        for img, s in gpu_cases():
            want = convlive.filter(img, variant="cpu", **s)
            d_in = cp.asarray(img)
            for name in gpu_variants():
                if not can_run(name, img.shape[1], img.shape[0], s):
                    continue
                d_out = cp.full(img.shape, POISON, dtype=cp.uint8)
                with self.subTest(variant=name, size=img.shape[:2], **s):
                    convlive.filter(wrap(d_in), out=wrap(d_out), variant=name, **s)
                    cp.cuda.Device().synchronize()
                    self.assertLessEqual(max_diff(cp.asnumpy(d_out), want), 1)
                    ran += 1
        self.assertGreater(ran, 0)

    def test_every_gpu_variant_cai(self):
        self.run_variants(OnlyCAI)

    def test_filter_object(self):
        """convlive.Filter on CUDA arrays, as filter(): auto's variant, each dtype, channels-first planes."""
        cp = self.cp
        for dtype in DTYPES:
            img = typed_frames((2, 3, 23, 37), dtype, 44)
            f = convlive.Filter(mask="custom", weights=EXACT_3x3, border="wrap")
            with self.subTest(dtype=dtype.__name__):
                d_out = cp.asarray(np.full(img.shape, 3, dtype))
                self.assertIs(f(cp.asarray(img), out=d_out, layout="NCHW"), d_out)
                cp.cuda.Device().synchronize()
                self.assert_within_contract(cp.asnumpy(d_out), img, exact_result(img, "NCHW", EXACT_3x3, "wrap", False),
                                               EXACT_3x3)

    def test_every_gpu_variant_dlpack(self):
        self.run_variants(OnlyDLPack)

    def test_cupy_arrays_as_they_are(self):
        cp = self.cp
        img = frame(65, 129, 1)
        want = convlive.filter(img, variant="cpu", mask="gaussian", radius=4)
        d_out = cp.full(img.shape, POISON, dtype=cp.uint8)
        got = convlive.filter(cp.asarray(img), out=d_out, mask="gaussian", radius=4)
        self.assertIs(got, d_out)
        cp.cuda.Device().synchronize()
        self.assertLessEqual(max_diff(cp.asnumpy(d_out), want), 1)

    def test_on_a_stream(self):
        cp = self.cp
        img = frame(65, 129, 2)
        want = convlive.filter(img, variant="cpu", mask="box", radius=3)
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:
            d_in = cp.asarray(img)
            d_out = cp.full(img.shape, POISON, dtype=cp.uint8)
            convlive.filter(d_in, out=d_out, stream=stream, mask="box", radius=3)
            convlive.filter(d_in, out=d_out, stream=stream.ptr, mask="box", radius=3)  # the handle as an int
        stream.synchronize()
        self.assertLessEqual(max_diff(cp.asnumpy(d_out), want), 1)

    def test_padded_device_rows(self):
        cp = self.cp
        img = frame(23, 37, 3)
        want = convlive.filter(img, variant="cpu", mask="sobel")
        d_in = cp.zeros((23, 41, 4), cp.uint8)[:, :37]
        d_in[:] = cp.asarray(img)
        d_out = cp.full((23, 38, 4), POISON, cp.uint8)[:, :37]
        for name in gpu_variants():
            if not can_run(name, 37, 23, dict(mask="sobel")):
                continue
            d_out[:] = POISON
            with self.subTest(variant=name):
                convlive.filter(d_in, out=d_out, mask="sobel", variant=name)
                cp.cuda.Device().synchronize()
                self.assertLessEqual(max_diff(cp.asnumpy(d_out), want), 1)

    def test_numpy_arrays_on_gpu_variants(self):
        img = frame(23, 37, 4)
        for settings in MASKS[:4]:
            want = convlive.filter(img, variant="cpu", **settings)
            for name in gpu_variants():
                if can_run(name, 37, 23, settings):
                    with self.subTest(variant=name, **settings):
                        out = np.full_like(img, POISON)
                        convlive.filter(img, out=out, variant=name, **settings)
                        self.assertLessEqual(max_diff(out, want), 1)

    def test_typed_frames(self):
        """Every dtype and layout on CuPy arrays, every GPU variant that takes them, against the float64
        reference within the contract, the output poisoned first."""
        cp = self.cp
        ran = 0
        for dtype in DTYPES:
            for layout, n, c in TypedFramesTest.CASES:
                h, w = 23, 37
                img = typed_frames(shape_of(layout, n, c, h, w), dtype, seed=c)
                exact = exact_result(img, layout, EXACT_3x3, "mirror", False)
                planes = layout in ("CHW", "NCHW")
                shape = dict(dtype=dtype, channels=1 if planes else c, batch=n * c if planes else n)
                for name in gpu_variants():
                    s = dict(mask="custom", weights=EXACT_3x3, border="mirror", variant=name)
                    if convlive.choose(w, h, **shape, **s)["why_not"] is not None:
                        continue
                    d_out = cp.full(img.shape, 3, dtype)
                    with self.subTest(dtype=dtype.__name__, layout=layout, c=c, variant=name):
                        convlive.filter(cp.asarray(img), out=d_out, layout=layout, **s)
                        cp.cuda.Device().synchronize()
                        self.assert_within_contract(cp.asnumpy(d_out), img, exact, EXACT_3x3)
                        ran += 1
        self.assertGreater(ran, 0)

    def test_float_output(self):
        """uint8 CuPy frames into float32 out= through every GPU variant that writes it (sweep, stream,
        auto), against the exact result within float32's bound, the output NaN-poisoned."""
        cp = self.cp
        ran = 0
        for layout, n, c in FloatOutputTest.CASES:
            img = typed_frames(shape_of(layout, n, c, 23, 37), np.uint8, seed=c)
            alpha = layout in ("CHW", "NCHW")
            exact = exact_result(img, layout, EXACT_3x3, "mirror", alpha)
            for name in ("sweep", "stream", "auto"):
                d_out = cp.full(img.shape, cp.nan, cp.float32)
                s = dict(mask="custom", weights=EXACT_3x3, border="mirror", filter_alpha=alpha, variant=name)
                with self.subTest(layout=layout, c=c, variant=name):
                    try:
                        convlive.filter(cp.asarray(img), out=d_out, layout=layout, **s)
                    except ValueError as e:  # stream: separable masks only, and it says so
                        self.assertEqual(name, "stream", str(e))
                        continue
                    cp.cuda.Device().synchronize()
                    got = cp.asnumpy(d_out)
                    bound = 1e-5 * np.abs(EXACT_3x3).sum() * 255
                    self.assertLessEqual(float(np.abs(got.astype(np.float64) - exact).max()), bound)
                    ran += 1
            d_out = cp.full(img.shape, cp.nan, cp.float32)
            convlive.filter(cp.asarray(img), out=d_out, layout=layout, mask="gaussian", radius=2, variant="stream",
                            filter_alpha=alpha)
            cp.cuda.Device().synchronize()
            self.assertFalse(bool(cp.isnan(d_out).any()))
        self.assertGreater(ran, 0)

    def test_device_errors(self):
        cp = self.cp
        d = cp.asarray(frame(5, 6, 0))
        with self.assertRaisesRegex(ValueError, "out="):
            convlive.filter(d)
        with self.assertRaisesRegex(ValueError, "in place"):
            convlive.filter(d, out=d)
        with self.assertRaisesRegex(TypeError, "CUDA array"):
            convlive.filter(d, out=np.zeros((5, 6, 4), np.uint8))
        with self.assertRaisesRegex(TypeError, "host memory"):
            convlive.filter(frame(5, 6, 0), out=cp.zeros((5, 6, 4), cp.uint8))
        with self.assertRaisesRegex(ValueError, "runs on host memory"):
            convlive.filter(d, out=cp.empty_like(d), variant="cpu")
        with self.assertRaisesRegex(ValueError, r"float64 is not taken.*astype\(cupy.float32\)"):
            convlive.filter(d.astype(cp.float64), out=cp.empty((5, 6, 4), cp.float64))
        with self.assertRaisesRegex(ValueError, "pixels must be adjacent"):
            convlive.filter(d[..., :3], out=cp.empty((5, 6, 3), cp.uint8))
        with self.assertRaisesRegex(ValueError, "differ from img's"):  # one plan, one layout: strides must match
            f = cp.zeros((5, 8, 3), cp.float32)[:, :6]
            convlive.filter(f, out=cp.empty((5, 6, 3), cp.float32))


@unittest.skipIf(NO_DEVICE, NO_DEVICE)
class TorchTest(unittest.TestCase, ContractCheck):
    @classmethod
    def setUpClass(cls):
        cls.torch, why = _import("torch")
        if cls.torch is None:
            raise unittest.SkipTest(why)
        if not cls.torch.cuda.is_available():
            raise unittest.SkipTest("torch is built without CUDA or sees no device")

    def test_every_gpu_variant_on_a_torch_stream(self):
        torch = self.torch
        stream = torch.cuda.Stream()
        ran = 0
        for img, s in gpu_cases():
            want = convlive.filter(img, variant="cpu", **s)
            for name in gpu_variants():
                if not can_run(name, img.shape[1], img.shape[0], s):
                    continue
                with self.subTest(variant=name, size=img.shape[:2], **s):
                    with torch.cuda.stream(stream):
                        t_in = torch.from_numpy(img).cuda()
                        t_out = torch.full(img.shape, POISON, dtype=torch.uint8, device="cuda")
                        got = convlive.filter(t_in, out=t_out, stream=stream, variant=name, layout="HWC", **s)
                    self.assertIs(got, t_out)
                    stream.synchronize()
                    self.assertLessEqual(max_diff(t_out.cpu().numpy(), want), 1)
                    ran += 1
        self.assertGreater(ran, 0)

    def test_typed_channels_first(self):
        """(N, C, H, W) tensors, channels-first by default, each dtype, auto's GPU variant."""
        torch = self.torch
        for dtype in DTYPES:
            img = typed_frames((2, 4, 23, 37), dtype, 4)
            with self.subTest(dtype=dtype.__name__):
                try:
                    t_in = torch.from_numpy(img).cuda()
                    t_out = torch.from_numpy(np.full(img.shape, 3, dtype)).cuda()
                except (TypeError, RuntimeError) as e:  # uint16 arrived in torch 2.3
                    self.skipTest(f"this torch has no {dtype.__name__} CUDA tensors: {e}")
                convlive.filter(t_in, out=t_out, mask="custom", weights=EXACT_3x3, border="wrap")
                torch.cuda.synchronize()
                self.assert_within_contract(t_out.cpu().numpy(), img,
                                               exact_result(img, "NCHW", EXACT_3x3, "wrap", False), EXACT_3x3)

    def test_dlpack_default_stream(self):
        torch = self.torch
        img = frame(65, 129, 8)
        want = convlive.filter(img, variant="cpu", mask="gaussian", radius=2)
        t_in = torch.from_numpy(img).cuda()
        t_out = torch.full(img.shape, POISON, dtype=torch.uint8, device="cuda")
        convlive.filter(OnlyDLPack(t_in), out=OnlyDLPack(t_out), mask="gaussian", radius=2)
        torch.cuda.synchronize()
        self.assertLessEqual(max_diff(t_out.cpu().numpy(), want), 1)


# ---- device=: the CUDA device -----------------------------------------------------------------------


def device_count():
    return len(convlive.devices())


class DeviceKeywordTest(unittest.TestCase):
    """device= on filter() and choose(), and device()/devices(); the GPU cases skip without devices."""

    def test_devices_list_every_device(self):
        devices = convlive.devices()
        self.assertIsInstance(devices, list)
        for i, d in enumerate(devices):
            self.assertTrue(d.available)
            self.assertEqual(d.index, i)
            self.assertTrue(d.name)
            self.assertEqual(convlive.device(i).name, d.name)
        if not devices:
            self.assertFalse(convlive.device().available)
            self.assertEqual(convlive.device().index, -1)
            self.assertIn("(CUDA: ", convlive.device().reason, "the CUDA error's own words")

    def test_bad_device_values(self):
        img = frame(7, 9, 1)
        for bad, error, words in ((-1, ValueError, r"device=-1: a CUDA device index is 0 or more"),
                                  ("0", TypeError, r"device: expected an int \(a CUDA device index\) or None, got str"),
                                  (1.0, TypeError, r"device: expected an int"),
                                  (True, TypeError, r"device: expected an int")):
            with self.subTest(device=bad):
                with self.assertRaisesRegex(error, words):
                    convlive.filter(img, device=bad)
                with self.assertRaisesRegex(error, words):
                    convlive.choose(9, 7, device=bad)

    def test_a_device_past_the_count_is_refused_naming_the_devices(self):
        past = max(device_count(), 1)  # without a device, 0 is the default device: the CPU runs
        img = frame(7, 9, 2)
        for call in (lambda: convlive.filter(img, device=past), lambda: convlive.choose(9, 7, device=past),
                     lambda: convlive.device(past)):
            with self.assertRaisesRegex(ValueError, rf"device={past}: this machine has ") as caught:
                call()
            if device_count() == 0:
                self.assertIn("no CUDA device", str(caught.exception))
                self.assertIn("leave device out and the CPU variant runs", str(caught.exception))
            else:
                self.assertIn("0: " + convlive.devices()[0].name, str(caught.exception))

    def test_device_none_and_zero_filter_host_arrays(self):
        img = frame(23, 37, 3)
        want = convlive.filter(img, variant="cpu", mask="box", radius=2)
        for device in (None, 0):
            with self.subTest(device=device):
                got = convlive.filter(img, mask="box", radius=2, device=device)
                self.assertLessEqual(max_diff(got, want), 1)
                self.assertIsNone(convlive.choose(37, 23, mask="box", radius=2, device=device)["why_not"])

    @unittest.skipIf(NO_DEVICE, NO_DEVICE)
    def test_host_arrays_on_the_second_device(self):
        if device_count() < 2:
            self.skipTest(f"this machine has {device_count()} CUDA device; the second-device test needs 2")
        img = frame(65, 129, 4)
        want = convlive.filter(img, variant="cpu", mask="gaussian", radius=3)
        for variant in ("auto", "tiled-coop"):
            with self.subTest(variant=variant):
                got = convlive.filter(img, mask="gaussian", radius=3, variant=variant, device=1)
                self.assertLessEqual(max_diff(got, want), 1)
        self.assertIsNone(convlive.choose(129, 65, mask="gaussian", radius=3, device=1)["why_not"])

    @unittest.skipIf(NO_DEVICE, NO_DEVICE)
    def test_cupy_arrays_are_filtered_on_the_device_that_holds_them(self):
        cp, why = _import("cupy")
        if cp is None:
            self.skipTest(why)
        img = frame(65, 129, 5)
        want = convlive.filter(img, variant="cpu", mask="gaussian", radius=3)
        for device in range(min(device_count(), 2)):
            with self.subTest(device=device), cp.cuda.Device(device):
                d_in = cp.asarray(img)
                d_out = cp.full(img.shape, POISON, dtype=cp.uint8)
            # Called with another device current: the arrays' device is the one used.
            with cp.cuda.Device(0 if device else min(1, device_count() - 1)):
                convlive.filter(d_in, out=d_out, mask="gaussian", radius=3, device=device)
                convlive.filter(d_in, out=d_out, mask="gaussian", radius=3)
            with cp.cuda.Device(device):
                cp.cuda.Device().synchronize()
                self.assertLessEqual(max_diff(cp.asnumpy(d_out), want), 1)
        if device_count() < 2:
            self.skipTest(f"this machine has {device_count()} CUDA device; the second-device test needs 2")
        with cp.cuda.Device(0):
            d_in = cp.asarray(img)
            d_out = cp.empty_like(d_in)
        with self.assertRaisesRegex(ValueError, r"device=1, but img is on CUDA device 0: .*pass device=0"):
            convlive.filter(d_in, out=d_out, device=1)

    @unittest.skipIf(NO_DEVICE, NO_DEVICE)
    def test_torch_tensors_are_filtered_on_the_device_that_holds_them(self):
        torch, why = _import("torch")
        if torch is None:
            self.skipTest(why)
        if not torch.cuda.is_available():
            self.skipTest("this torch has no CUDA")
        if device_count() < 2:
            self.skipTest(f"this machine has {device_count()} CUDA device; the second-device test needs 2")
        img = frame(23, 37, 6)
        want = convlive.filter(img, variant="cpu", mask="box", radius=2)
        t = torch.from_numpy(img).to("cuda:1")
        out = torch.empty_like(t)
        convlive.filter(t, out=out, layout="HWC", mask="box", radius=2)
        torch.cuda.synchronize(1)
        self.assertLessEqual(max_diff(out.cpu().numpy(), want), 1)
        with self.assertRaisesRegex(ValueError, r"device=0, but img is on CUDA device 1"):
            convlive.filter(t, out=out, layout="HWC", device=0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    unittest.main()
