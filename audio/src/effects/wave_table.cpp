// torchaudio 0.13's _generate_wave_table, operation by operation in float64
// (compiled without fused multiply-adds, audio/CMakeLists.txt).
#include "effects/wave_table.h"

#include <cmath>
#include <numbers>

namespace ember::audio::effects {

std::vector<double> wave_table(WaveType type, int64_t table_size, double min, double max, double phase) {
  const double n = static_cast<double>(table_size);
  const auto phase_offset = static_cast<int64_t>(phase / std::numbers::pi / 2 * n + 0.5);
  std::vector<double> d(static_cast<size_t>(table_size));
  for (int64_t t = 0; t < table_size; ++t) {
    // torch's % of int32 tensors by a positive int: the sign of the divisor.
    int64_t point = (t + phase_offset) % table_size;
    if (point < 0) point += table_size;
    const double p = static_cast<double>(point);
    double v;
    if (type == WaveType::Sine) {
      v = (std::sin(p / n * 2 * std::numbers::pi) + 1) / 2;
    } else {
      v = p * 2 / n;
      switch ((4 * point) / table_size) {
        case 0: v = v + 0.5; break;
        case 1:
        case 2: v = 1.5 - v; break;
        default: v = v - 1.5; break;
      }
    }
    d[static_cast<size_t>(t)] = v * (max - min) + min;
  }
  return d;
}

std::vector<int64_t> wave_table_int(WaveType type, int64_t table_size, double min, double max, double phase) {
  const std::vector<double> d = wave_table(type, table_size, min, max, phase);
  std::vector<int64_t> out(d.size());
  for (size_t i = 0; i < d.size(); ++i) out[i] = static_cast<int64_t>(d[i] < 0 ? d[i] - 0.5 : d[i] + 0.5);
  return out;
}

std::vector<float> wave_table_float(WaveType type, int64_t table_size, double min, double max, double phase) {
  const std::vector<double> d = wave_table(type, table_size, min, max, phase);
  return std::vector<float>(d.begin(), d.end());
}

}  // namespace ember::audio::effects
