#include "video_metadata.h"

namespace ember::io::detail {

double stream_duration(const AVFormatContext* fmt, const AVStream* s) {
  // torchvision reports INT64_MIN microseconds when the stream has no duration
  // (Matroska, WebM); the container's is the useful answer there.
  // Whole microseconds times 1e-6, as torchvision computes it (bit for bit).
  if (s->duration != AV_NOPTS_VALUE && s->duration > 0) {
    return static_cast<double>(av_rescale_q(s->duration, s->time_base, AV_TIME_BASE_Q)) * 1e-6;
  }
  if (fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0) {
    return static_cast<double>(fmt->duration) * 1e-6;
  }
  return 0.0;
}

VideoMetadata read_metadata(const MediaInput& input) {
  const AVFormatContext* fmt = input.format();
  VideoMetadata meta;
  std::map<AVMediaType, int64_t> seen;
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    const AVStream* s = fmt->streams[i];
    const AVCodecParameters* par = s->codecpar;
    StreamInfo info;
    const char* type = av_get_media_type_string(par->codec_type);
    info.type = type != nullptr ? type : "unknown";
    info.index = seen[par->codec_type]++;
    info.codec = avcodec_get_name(par->codec_id);
    info.duration = stream_duration(fmt, s);
    if (par->codec_type == AVMEDIA_TYPE_VIDEO) {
      // torchvision's VideoReader reports the real base frame rate (r_frame_rate:
      // 50 for a clip alternating 25 and 10 fps), read_video the average one.
      AVRational rate = s->r_frame_rate.num > 0 ? s->r_frame_rate : s->avg_frame_rate;
      info.fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0.0;
      info.width = par->width;
      info.height = par->height;
      meta.video_duration.push_back(info.duration);
      meta.video_fps.push_back(info.fps);
    } else if (par->codec_type == AVMEDIA_TYPE_AUDIO) {
      info.fps = par->sample_rate;
      info.sample_rate = par->sample_rate;
      info.channels = par->ch_layout.nb_channels;
      meta.audio_duration.push_back(info.duration);
      meta.audio_framerate.push_back(info.fps);
    }
    meta.streams.push_back(std::move(info));
  }
  return meta;
}

}  // namespace ember::io::detail
