#include "audio/ffmpeg/mp3_length.h"

#include <algorithm>

#include <ember/core/error.h>

#include "audio/ffmpeg/ffmpeg_raii.h"

extern "C" {
#include <libavutil/intreadwrite.h>
}

namespace ember::audio::ffmpeg_detail {

// Note [MP3 length]: an MP3 encoder adds silence at both ends: its delay
// (LAME: 576 samples) plus the decoder's own 529 at the start, and padding up
// to a whole frame at the end. LAME records both in
// the "LAME" part of the Xing/Info header it writes in place of the first
// frame, with the frame count. FFmpeg's mp3 demuxer turns them into
// AV_PKT_DATA_SKIP_SAMPLES side data: "skip delay + 529" on the first packet,
// "discard the last P samples" on the packets past the end of the signal. So
// the FFmpeg backend decodes such a file gaplessly, to exactly the samples that
// were encoded. Without the header there is nothing to skip by: every frame is
// decoded, delay and padding included (the signal starts 1,105 samples in for
// LAME). The rule is one for load() and info(), and is FFmpeg's, with one fix:
//
// libavcodec applies the side data itself unless the decoder is opened with
// AV_CODEC_FLAG2_SKIP_MANUAL, and FFmpeg 5.1 loses a start skip longer than a
// frame (1,105 > 576 samples per frame at 8-24 kHz) when the packet after the
// first carries side data of its own (the end discard of a file of two
// frames): that packet's "skip 0" replaces the pending skip, and a 1-sample
// file decodes to 47 samples. Ember opens MP3 decoders with SKIP_MANUAL and
// trims here: a skip carries over frames until spent, and a side data skip of
// 0 leaves it be; a frame's end discard then applies to what the skip left.
//
// A file cut short ends in a partial frame, which the mp3 parser hands over
// as a short packet; the decoder rejects it ("invalid block type") or decodes
// garbage. Ember neither decodes nor counts a packet shorter than the frame
// its header describes, so a cut MP3 loads to the whole frames that are
// there.
//
// The container's duration cannot give this length: FFmpeg's comes from the
// Xing frame count (frames x 1152, delay and padding included) or, without a
// Xing header, from the bit rate (an estimate). info() therefore counts the
// packets: their durations trimmed by the same GaplessTrim. Demuxing without
// decoding reads the file once.
std::pair<int64_t, int64_t> GaplessTrim::keep(int64_t n, const uint8_t* side, size_t side_size) {
  int64_t discard = 0;
  if (side != nullptr && side_size >= 10) {
    const auto skip = static_cast<int32_t>(AV_RL32(side));
    if (skip > 0) pending_skip_ = skip;
    discard = static_cast<int32_t>(AV_RL32(side + 4));
  }
  const int64_t first = std::clamp<int64_t>(pending_skip_, 0, n);
  pending_skip_ -= first;
  const int64_t count = n - first - std::clamp<int64_t>(discard, 0, n - first);
  return {first, count};
}

bool trims_gaplessly(AVCodecID codec) { return codec == AV_CODEC_ID_MP3; }

bool mp3_frame_cut_short(const AVPacket* pkt) {
  if (pkt->size < 4) return pkt->size > 0;
  const uint8_t* h = pkt->data;
  // 11 sync bits, version (3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5), layer (1: III).
  if (h[0] != 0xFF || (h[1] & 0xE0) != 0xE0) return false;
  const int version = (h[1] >> 3) & 3, layer = (h[1] >> 1) & 3;
  const int bitrate_index = h[2] >> 4, rate_index = (h[2] >> 2) & 3, padding = (h[2] >> 1) & 1;
  if (version == 1 || layer != 1 || bitrate_index == 0 || bitrate_index == 15 || rate_index == 3) return false;
  static constexpr int kKbps[2][15] = {{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
                                       {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}};
  static constexpr int kRate[3] = {44100, 48000, 32000};
  const bool mpeg1 = version == 3;
  const int rate = kRate[rate_index] >> (mpeg1 ? 0 : version == 2 ? 1 : 2);
  const int64_t kbps = kKbps[mpeg1 ? 0 : 1][bitrate_index];
  const int64_t bytes = (mpeg1 ? 144000 : 72000) * kbps / rate + padding;
  return pkt->size < bytes;
}

int64_t decoded_length(AVFormatContext* fmt, int stream_index) {
  const AVStream* st = fmt->streams[stream_index];
  const AVCodecParameters* par = st->codecpar;
  const AVRational samples = {1, par->sample_rate};
  Packet pkt(av_packet_alloc());
  EMBER_CHECK(pkt, "audio::info: out of memory allocating an AVPacket");
  GaplessTrim trim;
  int64_t total = 0;
  while (av_read_frame(fmt, pkt.get()) >= 0) {
    if (pkt->stream_index == stream_index && !mp3_frame_cut_short(pkt.get())) {
      const int64_t n = pkt->duration > 0 ? av_rescale_q(pkt->duration, st->time_base, samples)
                                          : par->frame_size;
      size_t side_size = 0;
      const uint8_t* side = av_packet_get_side_data(pkt.get(), AV_PKT_DATA_SKIP_SAMPLES, &side_size);
      if (n > 0) total += trim.keep(n, side, side_size).second;
    }
    av_packet_unref(pkt.get());
  }
  return total;
}

}  // namespace ember::audio::ffmpeg_detail
