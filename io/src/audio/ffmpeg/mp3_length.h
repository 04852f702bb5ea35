#pragma once
// MP3 lengths: the encoder delay and padding that a LAME header records,
// dropped by Ember itself (gapless decoding, Note [MP3 length] in
// mp3_length.cpp), the last frame of a cut file, and the exact decoded length
// counted from the packets without decoding (info()).
#include <cstddef>
#include <cstdint>
#include <utility>

extern "C" {
#include <libavformat/avformat.h>
}

namespace ember::audio::ffmpeg_detail {

// Applies FFmpeg's skip-samples side data (AV_PKT_DATA_SKIP_SAMPLES on a packet,
// the same 10 bytes as AV_FRAME_DATA_SKIP_SAMPLES on the frame a decoder opened
// with AV_CODEC_FLAG2_SKIP_MANUAL makes of it) to a stream's frames in order.
class GaplessTrim {
 public:
  // The part [first, first + count) of the next frame, of n samples, that
  // belongs to the signal. side: the frame's (or packet's) skip-samples side
  // data, nullptr when it has none.
  std::pair<int64_t, int64_t> keep(int64_t n, const uint8_t* side, size_t side_size);

 private:
  int64_t pending_skip_ = 0;  // start samples still to drop (a skip may span frames)
};

// Whether `codec` gets GaplessTrim (MP3) rather than libavcodec's own skipping.
bool trims_gaplessly(AVCodecID codec);

// True for an MP3 packet shorter than the frame its header describes: the
// last frame of a file cut short (Note [MP3 length]). load() does not decode
// it and info() does not count it. False when the header does not say (free
// format) or is not a Layer III header.
bool mp3_frame_cut_short(const AVPacket* pkt);

// Reads every packet of `fmt` (a freshly opened input; it is left at its end)
// and returns the number of frames (samples per channel) that load() returns
// for stream `stream_index` (an MP3 stream): the packets' durations trimmed by
// GaplessTrim, cut-short frames left out. Read errors end the count (the
// decode would end there too).
int64_t decoded_length(AVFormatContext* fmt, int stream_index);

}  // namespace ember::audio::ffmpeg_detail
