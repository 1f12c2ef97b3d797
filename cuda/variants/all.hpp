// Every variant's table entry, each made in its own file beside its kernel (internal to
// convlive_cuda). variants() lists them, in the order the table shows them; an entry is made
// once, there, so its address is the variant's identity (a Workspace's preparations key on it).
#pragma once

#include "convlive/variants.hpp"

namespace convlive::detail {

Variant naiveVariant();         // variants/naive.cpp, kernels/direct.cu
Variant constantVariant();      // variants/constant.cpp, kernels/direct.cu
Variant tiledVariant();         // variants/tiled.cpp, kernels/tiled.cu
Variant tiledCoopVariant();     // variants/tiled_coop.cpp, kernels/tiled.cu
Variant separableVariant();     // variants/separable.cpp, kernels/separable.cu
Variant fusedVariant();         // variants/fused.cpp, kernels/separable.cu
Variant streamVariant();        // variants/stream.cpp, kernels/stream.cu
Variant tensor2dVariant();      // variants/tensor2d.cpp, kernels/tensor.cu
Variant tensorSepVariant();     // variants/tensorsep.cpp, kernels/tensor.cu
Variant tensorStreamVariant();  // variants/tensorstream.cpp, kernels/tensor_stream.cu
Variant textureVariant();       // variants/texture.cpp, kernels/direct.cu
Variant sweepVariant();         // variants/sweep.cpp, kernels/sweep.cu, sweep.cuh
Variant fftVariant();           // variants/fft.cpp, fft.cpp and kernels/fft.cu
Variant cpuVariant();           // variants/cpu.cpp, reference.cpp
Variant cpuSimdVariant();       // variants/cpu_simd.cpp, cpu_simd.cpp

}  // namespace convlive::detail
