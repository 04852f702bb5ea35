#!/usr/bin/env bash
# Installs the Debian packages Ember needs. Idempotent and quiet when all are present.
#   scripts/install_deps.sh            build + test dependencies
#   scripts/install_deps.sh --bench    also libtorch-dev (the benchmark peer), libfftw3-dev (the fft suite's ceiling)
#                                      and python3-opencv (a peer of the data suite)
#   scripts/install_deps.sh --fixtures also python3-torch & co. (regenerating test fixtures)
# libsox and FFmpeg are optional for the build (EMBER_WITH_SOX / EMBER_WITH_FFMPEG);
# libsox-fmt-all brings SoX's FLAC, Ogg Vorbis, Opus and MP3 formats. espeak-ng and the
# sox program render the speech apps' spoken-digits corpus (scripts/make_speech.sh).
set -euo pipefail

# FFmpeg: Ember::io's video IO (optional at build time, EMBER_WITH_FFMPEG); the ffmpeg
# command-line tool makes test videos in tests/io/test_video_*.cpp.
packages=(cmake ninja-build g++ ccache pkg-config libgtest-dev libopenblas-openmp-dev libdnnl-dev
          libjpeg62-turbo-dev libpng-dev zlib1g-dev libexpat1-dev
          libsox-dev libsox-fmt-all
          libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev ffmpeg
          libsentencepiece-dev libre2-dev
          libgloo-dev
          espeak-ng sox)
for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(libtorch-dev libfftw3-dev python3-opencv) ;;
    --fixtures) packages+=(python3-torch python3-numpy python3-scipy
                           python3-torchvision python3-pil python3-av
                           python3-torchaudio sox python3-sentencepiece) ;;
    *) echo "install_deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install_deps.sh: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
