// Built instead of the FFmpeg sources when EMBER_WITH_FFMPEG is OFF: the video
// API links and raises a clear error.
#include <ember/core/error.h>
#include <ember/io/video.h>

namespace ember::io {
namespace {

[[noreturn]] void unavailable(const char* what) {
  EMBER_FAIL(what, ": Ember::io was built without FFmpeg (EMBER_WITH_FFMPEG=OFF); install "
                   "FFmpeg's development packages (scripts/install_deps.sh) and rebuild");
}

}  // namespace

bool video_available() { return false; }

struct VideoReader::Impl {};

VideoReader::VideoReader(const std::string&, const std::string&, int64_t, bool) { unavailable("VideoReader"); }
VideoReader::VideoReader(const Tensor&, const std::string&, int64_t, bool) { unavailable("VideoReader"); }
VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;
const VideoMetadata& VideoReader::metadata() const { unavailable("VideoReader::metadata"); }
std::string VideoReader::current_stream() const { unavailable("VideoReader::current_stream"); }
void VideoReader::set_current_stream(const std::string&) { unavailable("VideoReader::set_current_stream"); }
VideoReader& VideoReader::seek(double, bool) { unavailable("VideoReader::seek"); }
std::optional<VideoFrame> VideoReader::next() { unavailable("VideoReader::next"); }
VideoReader::iterator::iterator(VideoReader*) { unavailable("VideoReader::begin"); }
VideoReader::iterator& VideoReader::iterator::operator++() { unavailable("VideoReader::iterator"); }

VideoClip read_video(const std::string&, double, std::optional<double>, PtsUnit, bool) {
  unavailable("read_video");
}
VideoTimestamps read_video_timestamps(const std::string&, PtsUnit, bool) {
  unavailable("read_video_timestamps");
}
void write_video(const std::string&, const Tensor&, double, const std::string&,
                 const std::map<std::string, std::string>&, const std::optional<AudioTrack>&) {
  unavailable("write_video");
}

}  // namespace ember::io
