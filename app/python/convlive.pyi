# Type hints for the convlive module (app/python/convlive_module.cpp), installed beside it.
# filter()'s and choose()'s settings are the filter spec's (convlive.spec_settings()); a test checks
# that every one of them is listed here.
import os
import types
from typing import Any, Literal, Optional, Protocol, Sequence, TypedDict, TypeVar, Union

__version__: str

Mask = Literal["box", "gaussian", "sharpen", "emboss", "laplacian", "sobel", "scharr", "pitch", "custom"]
Border = Literal["zero", "clamp", "mirror", "wrap"]
Layout = Literal["HW", "HWC", "NHWC", "CHW", "NCHW"]
# Weights: text ("1,2,1;2,4,2;1,2,1") or an array-like of numbers.
Weights = Union[str, Sequence[float], Sequence[Sequence[float]], Any]
# A stream: a cudaStream_t handle (0: the legacy default stream), torch.cuda.Stream, cupy.cuda.Stream
# or an object with __cuda_stream__.
Stream = Union[int, Any, None]
# NumPy / CuPy arrays, torch tensors, objects with __cuda_array_interface__ or DLPack, buffers.
ArrayT = TypeVar("ArrayT")

class _Stream(Protocol):
    def __cuda_stream__(self) -> tuple[int, int]: ...

def filter(
    img: Any,
    *,
    out: Optional[ArrayT] = None,
    dtype: Any = None,
    stream: Union[Stream, _Stream] = None,
    layout: Optional[Layout] = None,
    device: Optional[int] = None,
    mask: Mask = "gaussian",
    radius: int = 1,
    sigma: Union[float, Literal["auto"]] = "auto",
    pitch: float = 2.0,
    direction: Literal["horizontal", "vertical"] = "horizontal",
    weights: Optional[Weights] = None,
    weights_file: Optional[Union[str, os.PathLike[str]]] = None,
    row_weights: Optional[Weights] = None,
    col_weights: Optional[Weights] = None,
    normalize: bool = False,
    border: Border = "clamp",
    filter_alpha: bool = False,
    variant: str = "auto",
    tile: Optional[Union[str, tuple[int, int]]] = None,
) -> Any:
    """The filtered frames: `out` when given, else a new array of img's shape and dtype (float32 where
    dtype="float32" asks for it from a uint8 img, or out is float32: the filtered values unrounded
    and unclamped)."""

class Filter:
    """A filter made once and called on many frames: the settings are checked (and a weights_file
    read) when it is made, not at each call as filter() does."""

    def __init__(
        self,
        *,
        mask: Mask = "gaussian",
        radius: int = 1,
        sigma: Union[float, Literal["auto"]] = "auto",
        pitch: float = 2.0,
        direction: Literal["horizontal", "vertical"] = "horizontal",
        weights: Optional[Weights] = None,
        weights_file: Optional[Union[str, os.PathLike[str]]] = None,
        row_weights: Optional[Weights] = None,
        col_weights: Optional[Weights] = None,
        normalize: bool = False,
        border: Border = "clamp",
        filter_alpha: bool = False,
        variant: str = "auto",
        tile: Optional[Union[str, tuple[int, int]]] = None,
    ) -> None: ...
    def __call__(
        self,
        img: Any,
        *,
        out: Optional[ArrayT] = None,
        dtype: Any = None,
        stream: Union[Stream, _Stream] = None,
        layout: Optional[Layout] = None,
        device: Optional[int] = None,
    ) -> Any:
        """filter(img, ...) with this Filter's settings."""
    def choose(
        self,
        width: int,
        height: int,
        *,
        dtype: Any = "uint8",
        out_dtype: Any = None,
        channels: Literal[1, 3, 4] = 4,
        batch: int = 1,
        device: Optional[int] = None,
    ) -> Choice: ...
    def describe(self) -> str: ...
    @property
    def settings(self) -> dict[str, Union[str, int, float, bool]]:
        """The settings that differ from the defaults: Filter(**f.settings) makes the same filter."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Any, tuple[()]]: ...

class VariantInfo(TypedDict):
    name: str
    description: str
    on_gpu: bool
    max_radius: int
    tiles: list[tuple[int, int]]
    tile_meaning: str

class SettingInfo(TypedDict, total=False):
    keyword: str
    name: str
    label: str
    type: Literal["choice", "int", "float", "flag", "text"]
    default: Union[str, int, float, bool]
    min: float
    max: float
    step: float
    choices: list[str]
    masks: list[str]
    help: str

class Choice(TypedDict):
    variant: str
    tile: Optional[tuple[int, int]]
    why: str
    why_not: Optional[str]

class DeviceInfo(types.SimpleNamespace):
    available: bool
    index: int  # the CUDA device index; -1 without a device
    name: str
    reason: str
    compute_capability: tuple[int, int]
    multiprocessors: int
    memory_bytes: int

def variants() -> list[VariantInfo]: ...
def spec_settings() -> list[SettingInfo]: ...
def describe(
    *,
    mask: Mask = "gaussian",
    radius: int = 1,
    sigma: Union[float, Literal["auto"]] = "auto",
    pitch: float = 2.0,
    direction: Literal["horizontal", "vertical"] = "horizontal",
    weights: Optional[Weights] = None,
    weights_file: Optional[Union[str, os.PathLike[str]]] = None,
    row_weights: Optional[Weights] = None,
    col_weights: Optional[Weights] = None,
    normalize: bool = False,
    border: Border = "clamp",
    filter_alpha: bool = False,
    variant: str = "auto",
    tile: Optional[Union[str, tuple[int, int]]] = None,
) -> str: ...
def device(index: Optional[int] = None) -> DeviceInfo: ...
def devices() -> list[DeviceInfo]: ...
def choose(
    width: int,
    height: int,
    *,
    dtype: Any = "uint8",
    out_dtype: Any = None,
    channels: Literal[1, 3, 4] = 4,
    batch: int = 1,
    device: Optional[int] = None,
    mask: Mask = "gaussian",
    radius: int = 1,
    sigma: Union[float, Literal["auto"]] = "auto",
    pitch: float = 2.0,
    direction: Literal["horizontal", "vertical"] = "horizontal",
    weights: Optional[Weights] = None,
    weights_file: Optional[Union[str, os.PathLike[str]]] = None,
    row_weights: Optional[Weights] = None,
    col_weights: Optional[Weights] = None,
    normalize: bool = False,
    border: Border = "clamp",
    filter_alpha: bool = False,
    variant: str = "auto",
    tile: Optional[Union[str, tuple[int, int]]] = None,
) -> Choice: ...
