// libFuzzer target: audio decoding (docs/io.md, "Audio") on arbitrary bytes,
// through every backend this build has: audio::sox_io::load_bytes (libsox,
// sox_open_mem_read) and audio::ffmpeg::load_bytes (libavformat on a custom
// AVIOContext). Every input must decode or raise ember::Error (anything else
// aborts the run).
//
// MP3: libsox 14.4.2's MP3 reader itself does an overlapping memcpy on some
// corrupt files (ASan memcpy-param-overlap inside libsox_fmt_mp3.so, found by
// this target; not Ember's code), so bytes that look like an MP3 (an ID3 tag or
// a frame sync) go to FFmpeg only, unless EMBER_FUZZ_SOX_MP3=1, which hands
// them to libsox too with the "mp3" hint (libsox knows MP3 by name).
// Run with LSAN_OPTIONS=suppressions=fuzz/lsan_audio.supp:fast_unwind_on_malloc=0
// (libsox's own format modules leak; see that file).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <ember/ember.h>
#include <ember/io/audio.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool mp3 = (size >= 3 && std::memcmp(data, "ID3", 3) == 0) ||
                   (size >= 2 && data[0] == 0xFF && (data[1] & 0xE0) == 0xE0);
  ember::Tensor bytes = ember::empty({static_cast<int64_t>(size)}, ember::kUInt8);
  std::memcpy(bytes.data_ptr(), data, size);
  static const bool sox_mp3 = std::getenv("EMBER_FUZZ_SOX_MP3") != nullptr;
  for (const std::string& backend : ember::audio::list_audio_backends()) {
    if (backend == "sox" && mp3 && !sox_mp3) continue;
    try {
      const ember::audio::Waveform w =
          backend == "sox" ? ember::audio::sox_io::load_bytes(bytes, true, true, mp3 ? "mp3" : "")
                           : ember::audio::ffmpeg::load_bytes(bytes);
      (void)w.waveform.numel();
    } catch (const ember::Error&) {
    }
  }
  return 0;
}
