#pragma once
// FFmpeg's own error text for the audio backend's errors (Note [FFmpeg
// messages] in ffmpeg_messages.cpp), shared by ffmpeg_audio_read.cpp and
// ffmpeg_audio_write.cpp.
#include <string>

namespace ember::audio::ffmpeg_detail {

// Installs the log callback (once per process) and forgets the calling
// thread's last message: called before each FFmpeg operation whose errors
// quote it.
void ensure_ffmpeg();

// av_error(code) plus FFmpeg's own message, if it logged one.
std::string why(int code);

}  // namespace ember::audio::ffmpeg_detail
