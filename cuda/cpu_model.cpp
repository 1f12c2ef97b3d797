#include "cpu_model.hpp"

#include "convlive/cpu_simd.hpp"

namespace convlive {
namespace {

double masksOf(const Filter& f) { return f.combine == Combine::Magnitude ? 2 : 1; }
double tapsOf(const Filter& f) { return 2.0 * f.mask.radius() + 1; }

void cacheNote(WorkModel& m) {
  m.notes.push_back("every tap is a load from memory (the caches serve all but the first read of each pixel)");
}

}  // namespace

WorkModel cpuReferenceModel(const Filter& f) {
  const double taps = tapsOf(f), masks = masksOf(f);
  WorkModel m;
  if (f.mask.separable()) {
    // Row pass: taps pixels per value, into a plane of 4 doubles a pixel per mask; column pass:
    // taps plane values per output per mask, and the input's alpha.
    m.globalReads = taps * masks + taps * masks + 1;
    m.globalBytes = 4 * taps * masks + 32 * taps * masks + 4;
    m.apron = taps;
    m.flops = 2 * 4 * taps * masks * 2;
    m.dramBytes = 8 + 64 * masks;
    m.notes.push_back("separable: row pass into " + std::string(masks > 1 ? "two planes" : "a plane") +
                      " of doubles (32 bytes a pixel), written and read back through DRAM");
  } else {
    m.globalReads = taps * taps + 1;  // and the centre again for its alpha
    m.globalBytes = 4 * m.globalReads;
    m.apron = taps * taps;
    m.flops = 2 * 4 * taps * taps * masks;
    m.dramBytes = 8;
  }
  m.notes.push_back("FLOPs in double precision");
  cacheNote(m);
  return m;
}

WorkModel cpuSimdModel(const Filter& f) {
  const double taps = tapsOf(f), masks = masksOf(f);
  WorkModel m;
  if (f.mask.separable()) {
    // Column pass: taps 8-bit pixels per value into a float row (in the cache); row pass: taps
    // float4 values of that row per output.
    m.globalReads = 2 * taps * masks;
    m.globalBytes = (4 + 16) * taps * masks;
    m.apron = taps;
    m.flops = 2 * 4 * taps * masks * 2;
  } else {
    // Rows widened to float once (a pixel read each), then taps^2 float4 reads per output.
    m.globalReads = taps * taps + 1;
    m.globalBytes = 16 * taps * taps + 4;
    m.apron = taps * taps;
    m.flops = 2 * 4 * taps * taps * masks;
  }
  m.dramBytes = 8;
  m.notes.push_back(planCpuSimd(f).precision == CpuSimdPlan::Precision::Double ? "FLOPs in double precision"
                                                                               : "FLOPs in float");
  cacheNote(m);
  return m;
}

}  // namespace convlive
