#pragma once
// Decodes one stream of a MediaInput packet by packet: the frame loop shared by
// VideoReader and read_video. Frames come out with their timestamp; seeking goes
// to the keyframe at or before a time, the caller drops what it does not want.
#include <cstdint>
#include <optional>
#include <string>

#include "ffmpeg_raii.h"
#include "media_input.h"
#include "stream_damage.h"

namespace ember::io::detail {

class StreamDecoder {
 public:
  // Opens the decoder of input.format()->streams[stream_index]; other streams'
  // packets are discarded by the demuxer. num_threads 0: FFmpeg chooses.
  // torchvision_timing: leave the decoder's pkt_timebase unset, as torchvision's
  // reader does. Then the decoder cannot shift the pts of a frame whose leading
  // samples it skips (Opus/Vorbis pre-skip), so that frame keeps its negative
  // container pts and a read from time 0 drops it, exactly as in torchvision.
  StreamDecoder(MediaInput& input, int stream_index, int64_t num_threads,
                bool torchvision_timing = false);

  AVStream* stream() const { return stream_; }
  AVCodecContext* codec() const { return codec_.get(); }

  // The next decoded frame (owned by the decoder, valid until the next call), or
  // nullptr at the end of the stream. A stream also ends at damaged data (a
  // corrupt packet, a read or decode error, the end of a truncated file);
  // take_damage() then says why (Note [Truncated and damaged media]).
  AVFrame* next_frame();

  // After next_frame() returned nullptr: why the stream ended early, or
  // nullopt when it ended at its end. Reported once (cleared by the call).
  std::optional<StreamDamage> take_damage();

  // The frame's presentation time in microseconds (torchvision's units), from its
  // best-effort timestamp; frames without one continue from the previous frame.
  int64_t frame_pts_us(const AVFrame* frame);
  // The same in the stream's time base (PyAV's frame.pts, with the same fallback).
  int64_t frame_pts(const AVFrame* frame);

  // Repositions at the keyframe at or before time_us (microseconds) of the file's
  // default stream and restarts with a fresh decoder (torchvision's VideoReader).
  // Raises if the file cannot seek.
  void seek_us(int64_t time_us);
  // Repositions this stream at the keyframe at or before `ticks` of its time base
  // and flushes the decoder (PyAV's container.seek(..., stream=s), read_video).
  void seek_ticks(int64_t ticks);

 private:
  // Feeds the decoder one packet of our stream (or the end-of-stream flush).
  void feed();
  // Records why the stream ends early and flushes the decoder: the frames it
  // holds came from intact packets and still come out.
  void end_at_damage(std::string reason);
  void flush();
  // After the decoder failed: std::bad_alloc when memory for one more frame
  // cannot be had (Note [FFmpeg out of memory]: a decoder whose allocation
  // failed inside reports "Invalid data"), else nothing (the data is damaged).
  void check_memory_after_failure() const;
  // (Re)creates and opens the codec context.
  void open_codec();

  MediaInput& input_;
  AVStream* stream_ = nullptr;
  int64_t num_threads_ = 0;
  bool torchvision_timing_ = false;
  CodecContextPtr codec_;
  PacketPtr packet_;
  FramePtr frame_;
  bool flushed_ = false;       // the end-of-stream packet was sent
  int64_t last_pts_ = AV_NOPTS_VALUE;  // in the stream's time base
  std::optional<std::string> damage_;  // why the stream ends early
  bool failed_ = false;                // the decoder failed: the stream is over
  std::optional<double> last_decoded_s_;  // seconds: the last frame next_frame() returned
};

}  // namespace ember::io::detail
