#pragma once
// Video and audio IO through FFmpeg, with torchvision.io's semantics:
//   * VideoReader: torchvision's fine-grained reader (torchvision.io.VideoReader,
//     its "video_reader" C++ backend): one stream at a time, frame by frame,
//     frame-accurate seek, frames {data, pts}.
//   * read_video / read_video_timestamps / write_video: torchvision.io's whole-clip
//     functions (their PyAV backend, torchvision's default).
// See docs/io.md ("Video") for what is compared with torchvision and where Ember
// differs. Without FFmpeg (EMBER_WITH_FFMPEG=OFF) every function here raises;
// video_available() says which build this is.
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::io {

// True when Ember::io was built with FFmpeg.
bool video_available();

// One decoded frame. Video: [3, H, W] uint8 RGB, contiguous. Audio: [samples,
// channels] float32 (interleaved, in [-1, 1] for integer sources), at the stream's
// own sample rate. pts: presentation time in seconds, rounded to microseconds
// as torchvision does (the frame's best-effort timestamp).
struct VideoFrame {
  Tensor data;
  double pts = 0.0;
};

// One stream of the file (more detail than torchvision's metadata dict).
struct StreamInfo {
  std::string type;         // "video", "audio", "subtitle", "data", ...
  int64_t index = 0;        // among the streams of its type: "video:1" is the second video stream
  std::string codec;        // FFmpeg's decoder name ("h264", "vp9", "aac", ...)
  double duration = 0.0;    // seconds: the stream's own, else the container's, else 0
  double fps = 0.0;         // video: base frame rate (FFmpeg's r_frame_rate, torchvision's
                            // "fps"; 0 when unknown); audio: sample rate
  int64_t width = 0, height = 0;                // video
  int64_t sample_rate = 0, channels = 0;        // audio
};

// VideoReader::metadata(): torchvision's get_metadata() as a struct, plus every
// stream. video_*: one entry per video stream; audio_*: one per audio stream.
struct VideoMetadata {
  std::vector<double> video_duration;     // seconds
  std::vector<double> video_fps;          // base frame rate (see StreamInfo::fps)
  std::vector<double> audio_duration;     // seconds
  std::vector<double> audio_framerate;    // sample rate (torchvision's "framerate")
  std::vector<StreamInfo> streams;        // in file order
};

// Reads one stream of a video file (or of the file's bytes in memory) frame by
// frame. Iterating yields VideoFrame; it works with range-for and with standard
// algorithms:
//   io::VideoReader reader("clip.mp4", "video");
//   for (const io::VideoFrame& f : reader.seek(2.0)) { ... }      // from t = 2 s
// The iterator is a single-pass input iterator: iterating again continues from
// where the reader is. Memory stays flat: each frame is a fresh tensor; nothing
// else accumulates.
class VideoReader {
 public:
  // stream: "video", "audio", or with an index among streams of that type,
  // "video:1". An index of -1 / no index picks the first stream of the type.
  // num_threads: decoder threads; 0 lets FFmpeg choose.
  // strict: what a truncated or damaged file does when iteration reaches the
  // damage. false (default, as torchvision): the stream ends there, after the
  // frames that decoded, and an ember::warn (core/warning.h) names the file,
  // the reason and the last good pts. true: next() raises an ember::Error
  // saying the same (once; the reader is then at its end). A file that cannot
  // be opened raises either way. See docs/io.md, "Truncated and damaged files".
  explicit VideoReader(const std::string& path, const std::string& stream = "video",
                       int64_t num_threads = 0, bool strict = false);
  // From the encoded file's bytes: a 1-D uint8 tensor (copied reference kept alive).
  explicit VideoReader(const Tensor& data, const std::string& stream = "video",
                       int64_t num_threads = 0, bool strict = false);
  ~VideoReader();
  VideoReader(VideoReader&&) noexcept;
  VideoReader& operator=(VideoReader&&) noexcept;

  const VideoMetadata& metadata() const;

  // The stream being read, e.g. "video:0".
  std::string current_stream() const;

  // Switches to another stream ("audio", "video:1"); decoding restarts at the
  // beginning of the file, as in torchvision. Raises if there is no such stream.
  void set_current_stream(const std::string& stream);

  // Positions the reader so that the next frame is the first one with
  // pts >= seconds: decoding starts at the preceding keyframe and drops the frames
  // before the target. keyframes_only: start at that keyframe instead (faster, the
  // first frame may be earlier than `seconds`). Returns *this for chaining.
  VideoReader& seek(double seconds, bool keyframes_only = false);

  // The next frame of the current stream, or nullopt at the end.
  std::optional<VideoFrame> next();

  class iterator {
   public:
    using iterator_concept = std::input_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = VideoFrame;
    using difference_type = std::ptrdiff_t;
    using pointer = const VideoFrame*;
    using reference = const VideoFrame&;

    iterator() = default;
    reference operator*() const { return *frame_; }
    pointer operator->() const { return &*frame_; }
    iterator& operator++();
    void operator++(int) { ++*this; }
    // Two iterators are equal when both are at the end (or are the same one).
    friend bool operator==(const iterator& a, const iterator& b) {
      return a.at_end() == b.at_end() && (a.at_end() || a.reader_ == b.reader_);
    }

   private:
    friend class VideoReader;
    explicit iterator(VideoReader* reader);
    bool at_end() const { return !frame_.has_value(); }
    VideoReader* reader_ = nullptr;
    std::optional<VideoFrame> frame_;
  };
  // begin() decodes the first frame.
  iterator begin() { return iterator(this); }
  iterator end() { return iterator(); }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// How read_video's start/end are expressed: in the video stream's time base
// ("pts", torchvision's default) or in seconds.
enum class PtsUnit { PTS, SEC };

struct VideoInfo {
  std::optional<double> video_fps;  // average frame rate of the video stream, if any
  std::optional<double> audio_fps;  // sample rate of the audio stream, if any
};

struct VideoClip {
  Tensor video;    // [T, H, W, 3] uint8 (T = 0: [0, 1, 1, 3])
  Tensor audio;    // [channels, samples] float32 ([1, 0] when none)
  VideoInfo info;
};

// Every video frame with start_pts <= pts <= end_pts (end = nullopt: to the end), and
// the audio over the same time span, as torchvision.io.read_video (PyAV backend).
// strict: a stream that ends at damaged data (a truncated file) before end_pts
// raises an ember::Error (true) or returns the frames that decoded with an
// ember::warn naming the file, the reason and the last good pts (false, the
// default; torchvision returns them silently). As VideoReader's strict.
VideoClip read_video(const std::string& path, double start_pts = 0,
                     std::optional<double> end_pts = std::nullopt, PtsUnit pts_unit = PtsUnit::PTS,
                     bool strict = false);

struct VideoTimestamps {
  std::vector<double> pts;          // per frame, in pts_unit (time-base ticks or seconds)
  std::optional<double> video_fps;  // nullopt without a video stream
};

// The presentation timestamps of every video frame, in presentation order, without
// decoding pixels (torchvision.io.read_video_timestamps). strict as read_video's:
// the timestamps up to the damage of a truncated file, with a warning, or an error.
VideoTimestamps read_video_timestamps(const std::string& path, PtsUnit pts_unit = PtsUnit::PTS,
                                      bool strict = false);

// Writes [T, H, W, 3] uint8 RGB frames as a video. The container is chosen by the
// file extension (.mp4, .mkv, .webm, .avi, ...). codec: an FFmpeg encoder name
// ("libx264", "mpeg4", "libvpx-vp9", ...); options: encoder options ("crf" -> "0").
// fps is rounded to a rational with denominator up to 1001 (29.97 works).
// Optional audio: [channels, samples] float32 at audio_fps with audio_codec ("aac",
// "libopus", "libmp3lame", "flac", "pcm_s16le", ...).
struct AudioTrack {
  Tensor samples;                                   // [channels, samples] float32
  int64_t sample_rate = 0;
  std::string codec = "aac";
  std::map<std::string, std::string> options;
};
void write_video(const std::string& path, const Tensor& frames, double fps,
                 const std::string& codec = "libx264",
                 const std::map<std::string, std::string>& options = {},
                 const std::optional<AudioTrack>& audio = std::nullopt);

}  // namespace ember::io
