#pragma once
// The modulation tables of phaser and flanger (torchaudio 0.13's
// _generate_wave_table): one period of a sine or a triangle between min and
// max, started `phase` radians in, in torchaudio's float64 arithmetic.
#include <cstdint>
#include <vector>

namespace ember::audio::effects {

enum class WaveType { Sine, Triangle };

// table_size >= 1 values in float64.
std::vector<double> wave_table(WaveType type, int64_t table_size, double min, double max, double phase);
// data_type "INT": each value rounded half away from zero to an integer.
std::vector<int64_t> wave_table_int(WaveType type, int64_t table_size, double min, double max, double phase);
// data_type "FLOAT": each value rounded to float32.
std::vector<float> wave_table_float(WaveType type, int64_t table_size, double min, double max, double phase);

}  // namespace ember::audio::effects
