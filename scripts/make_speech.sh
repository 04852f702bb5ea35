#!/usr/bin/env bash
# make_speech.sh OUT_DIR
#
# Renders the speech pipelines' default corpus (ember-asr, ember-vocoder,
# ember-separate; docs/audio.md): spoken digit strings ("THREE ONE FOUR", 3 to
# 7 digits) by 16 espeak-ng voices, written in the official layouts the
# datasets read:
#
#   OUT/LibriSpeech/{train-clean-100,dev-clean,test-clean}/SPK/CHAP/SPK-CHAP-UUUU.flac   16 kHz
#                                                     .../SPK/CHAP/SPK-CHAP.trans.txt
#   OUT/LibriTTS/{train-clean-100,dev-clean,test-clean}/SPK/CHAP/SPK_CHAP_000000_UUUUUU.wav  24 kHz
#       + .original.txt ("3 1 4"), .normalized.txt ("three one four"), SPK_CHAP.trans.tsv
#   OUT/Libri2Mix/wav8k/min/{train-100,dev,test}/{mix_clean,mix_both,mix_single,s1,s2,noise}/ID.wav
#       + OUT/Libri2Mix/wav8k/min/metadata/mixture_<split>_mix_<kind>.csv
#   OUT/wsj0-mix/2speakers/wav8k/min/{tr,cv,tt}/{mix,s1,s2}/ID.wav   (hard links to the Libri2Mix files)
#
# Speakers 1001..1010 are the training speakers; 2001..2003 (dev) and
# 3001..3003 (test) are held out, so dev/test measure speakers the models never
# heard. A mixture takes two utterances of different speakers of its split,
# peak-normalised to random levels between -8 and -14 dBFS and cut to the
# shorter one (LibriMix's "min" mode); mix_clean = s1 + s2 exactly (16-bit
# sums, no dither), mix_both = s1 + s2 + noise, mix_single = s1 + noise.
#
# Deterministic: the same packages give the same files (sox runs without
# dither and with its repeatable random numbers). Takes about a minute on 2
# cores. Needs (Debian 12): apt-get install espeak-ng sox libsox-fmt-all
# (scripts/install_deps.sh installs them).
set -euo pipefail

OUT=${1:?usage: make_speech.sh OUT_DIR}
for tool in espeak-ng sox soxi awk; do
  command -v "$tool" >/dev/null || { echo "make_speech.sh: missing $tool (apt-get install espeak-ng sox libsox-fmt-all)" >&2; exit 1; }
done
TRAIN_UTTERANCES=${TRAIN_UTTERANCES:-50}   # per training speaker
HELDOUT_UTTERANCES=${HELDOUT_UTTERANCES:-20}  # per dev/test speaker
MIXTURES_TRAIN=${MIXTURES_TRAIN:-300}
MIXTURES_HELDOUT=${MIXTURES_HELDOUT:-40}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
JOBS=$(nproc 2>/dev/null || echo 2)

# id|espeak voice+variant|words per minute|pitch (0-99)
SPEAKERS=(
  "1001|en-us+m3|150|45" "1002|en-us+f2|160|60" "1003|en-gb+m1|145|40" "1004|en-us+f4|130|70"
  "1005|en-gb-scotland+m2|155|50" "1006|en-029+f1|140|65" "1007|en-gb-x-rp+m4|170|35" "1008|en-us+f5|150|55"
  "1009|en-gb-x-gbclan+m5|135|45" "1010|en-gb+f3|165|75"
  "2001|en-us+m6|145|50" "2002|en-gb-x-gbcwmd+f2|150|60" "2003|en-029+m7|160|40"
  "3001|en-gb+m2|140|55" "3002|en-us+f1|155|65" "3003|en-gb-scotland+m4|150|45"
)
split_of() {  # speaker id -> LibriSpeech subset
  case $1 in 1*) echo train-clean-100 ;; 2*) echo dev-clean ;; *) echo test-clean ;; esac
}
CHAPTER=10

# The digit string of (speaker, utterance): a Park-Miller sequence seeded by both.
digits_of() {
  awk -v s="$1" -v u="$2" 'BEGIN {
    split("zero one two three four five six seven eight nine", w, " ");
    x = (s * 69069 + u * 1013904223 + 12345) % 2147483647; if (x <= 0) x += 2147483646;
    for (k = 0; k < 3; k++) x = (x * 16807) % 2147483647;
    n = 3 + x % 5; words = ""; nums = "";
    for (i = 0; i < n; i++) {
      x = (x * 16807) % 2147483647; d = x % 10;
      words = words (i ? " " : "") w[d + 1]; nums = nums (i ? " " : "") d;
    }
    print words "|" nums }'
}

# ---------------------------------------------------------------- utterances
# One job per utterance: render with espeak-ng (22.05 kHz), write the
# LibriSpeech FLAC (16 kHz), the LibriTTS WAV (24 kHz) and an 8 kHz WAV that
# the mixtures start from.
render_one() {
  local spk=$1 voice=$2 wpm=$3 pitch=$4 utt=$5 words=$6
  local sub ls_dir tts_dir raw
  local SOX=(sox -D -R -V1)
  sub=$(split_of "$spk")
  ls_dir="$OUT/LibriSpeech/$sub/$spk/$CHAPTER"
  tts_dir="$OUT/LibriTTS/$sub/$spk/$CHAPTER"
  raw="$WORK/raw_${spk}_${utt}.wav"
  espeak-ng -v "$voice" -s "$wpm" -p "$pitch" -w "$raw" "$words"
  "${SOX[@]}" "$raw" -r 16000 -b 16 "$ls_dir/$(printf '%d-%d-%04d' "$spk" "$CHAPTER" "$utt").flac"
  "${SOX[@]}" "$raw" -r 24000 -b 16 "$tts_dir/$(printf '%d_%d_000000_%06d' "$spk" "$CHAPTER" "$utt").wav"
  "${SOX[@]}" "$raw" -r 8000 -b 16 "$WORK/8k_${spk}_${utt}.wav"
  rm -f "$raw"
}
export -f render_one split_of
export OUT WORK CHAPTER

jobs_file="$WORK/render.jobs"
: >"$jobs_file"
for entry in "${SPEAKERS[@]}"; do
  IFS='|' read -r spk voice wpm pitch <<<"$entry"
  sub=$(split_of "$spk")
  n=$TRAIN_UTTERANCES
  [[ $sub != train-clean-100 ]] && n=$HELDOUT_UTTERANCES
  ls_dir="$OUT/LibriSpeech/$sub/$spk/$CHAPTER"
  tts_dir="$OUT/LibriTTS/$sub/$spk/$CHAPTER"
  mkdir -p "$ls_dir" "$tts_dir"
  : >"$ls_dir/$spk-$CHAPTER.trans.txt"
  : >"$tts_dir/${spk}_${CHAPTER}.trans.tsv"
  for ((u = 0; u < n; u++)); do
    IFS='|' read -r words nums <<<"$(digits_of "$spk" "$u")"
    upper=$(tr '[:lower:]' '[:upper:]' <<<"$words")
    printf '%d-%d-%04d %s\n' "$spk" "$CHAPTER" "$u" "$upper" >>"$ls_dir/$spk-$CHAPTER.trans.txt"
    tts_id=$(printf '%d_%d_000000_%06d' "$spk" "$CHAPTER" "$u")
    printf '%s' "$nums" >"$tts_dir/$tts_id.original.txt"
    printf '%s' "$words" >"$tts_dir/$tts_id.normalized.txt"
    printf '%s\t%s\t%s\n' "$tts_id" "$nums" "$words" >>"$tts_dir/${spk}_${CHAPTER}.trans.tsv"
    printf '%s\0%s\0%s\0%s\0%s\0%s\0' "$spk" "$voice" "$wpm" "$pitch" "$u" "$words" >>"$jobs_file"
  done
done
xargs -0 -n 6 -P "$JOBS" bash -c 'render_one "$@"' _ <"$jobs_file"

# ---------------------------------------------------------------- mixtures
MIX_ROOT="$OUT/Libri2Mix/wav8k/min"
mkdir -p "$MIX_ROOT/metadata"

# make_mixture SPLIT ID SPK_A UTT_A SPK_B UTT_B LEVEL_A LEVEL_B
make_mixture() {
  local split=$1 id=$2 a="$WORK/8k_$3_$4.wav" b="$WORK/8k_$5_$6.wav" level_a=$7 level_b=$8
  local d="$OUT/Libri2Mix/wav8k/min/$split" n skip
  local SOX=(sox -D -R -V1)
  n=$(( $(soxi -s "$a") < $(soxi -s "$b") ? $(soxi -s "$a") : $(soxi -s "$b") ))
  "${SOX[@]}" "$a" "$d/s1/$id.wav" trim 0 "${n}s" norm "$level_a"
  "${SOX[@]}" "$b" "$d/s2/$id.wav" trim 0 "${n}s" norm "$level_b"
  # Noise: white noise of amplitude 0.01 (about -40 dBFS). sox -R repeats the
  # same random sequence every run, so each mixture cuts its noise from its own
  # offset into a longer run of it.
  skip=$(( ($4 * 7919 + $6 * 104729 + ${#id} * 31) % 16000 ))
  "${SOX[@]}" -r 8000 -n -b 16 -c 1 "$d/noise/$id.wav" synth "$((n + skip))s" whitenoise vol 0.01 trim "${skip}s"
  "${SOX[@]}" -m -v 1 "$d/s1/$id.wav" -v 1 "$d/s2/$id.wav" "$d/mix_clean/$id.wav"
  "${SOX[@]}" -m -v 1 "$d/mix_clean/$id.wav" -v 1 "$d/noise/$id.wav" "$d/mix_both/$id.wav"
  "${SOX[@]}" -m -v 1 "$d/s1/$id.wav" -v 1 "$d/noise/$id.wav" "$d/mix_single/$id.wav"
  echo "$n" >"$WORK/len_${split}_$id"
}
export -f make_mixture

# Speakers and utterance counts of each mixture split.
mixture_plan() {  # SPLIT COUNT FIRST_SPEAKER NUM_SPEAKERS UTTERANCES_PER_SPEAKER SEED
  awk -v sp="$1" -v count="$2" -v first="$3" -v ns="$4" -v nu="$5" -v seed="$6" 'BEGIN {
    x = seed;
    for (i = 0; i < count;) {
      x = (x * 16807) % 2147483647; sa = first + x % ns;
      x = (x * 16807) % 2147483647; sb = first + (sa - first + 1 + x % (ns - 1)) % ns;
      x = (x * 16807) % 2147483647; ua = x % nu;
      x = (x * 16807) % 2147483647; ub = x % nu;
      x = (x * 16807) % 2147483647; la = -8 - x % 7;
      x = (x * 16807) % 2147483647; lb = -8 - x % 7;
      id = sprintf("%d-%d-%04d_%d-%d-%04d", sa, 10, ua, sb, 10, ub);
      if (id in seen) continue;  # draw again: every mixture is different
      seen[id] = 1; i++;
      printf "%s %s %d %d %d %d %d %d\n", sp, id, sa, ua, sb, ub, la, lb;
    } }'
}
mix_jobs="$WORK/mix.jobs"
: >"$mix_jobs"
for split in train-100 dev test; do
  for kind in mix_clean mix_both mix_single s1 s2 noise; do mkdir -p "$MIX_ROOT/$split/$kind"; done
done
mixture_plan train-100 "$MIXTURES_TRAIN" 1001 10 "$TRAIN_UTTERANCES" 4242 >>"$mix_jobs"
mixture_plan dev "$MIXTURES_HELDOUT" 2001 3 "$HELDOUT_UTTERANCES" 777 >>"$mix_jobs"
mixture_plan test "$MIXTURES_HELDOUT" 3001 3 "$HELDOUT_UTTERANCES" 9001 >>"$mix_jobs"
xargs -n 8 -P "$JOBS" bash -c 'make_mixture "$@"' _ <"$mix_jobs"

# LibriMix's metadata files (paths relative to the Libri2Mix folder).
for split in train-100 dev test; do
  for kind in clean both single; do
    csv="$MIX_ROOT/metadata/mixture_${split}_mix_${kind}.csv"
    if [[ $kind == clean ]]; then
      echo "mixture_ID,mixture_path,source_1_path,source_2_path,length" >"$csv"
    else
      echo "mixture_ID,mixture_path,source_1_path,source_2_path,noise_path,length" >"$csv"
    fi
    for f in "$MIX_ROOT/$split/mix_$kind"/*.wav; do
      id=$(basename "$f" .wav)
      rel="wav8k/min/$split"
      line="$id,$rel/mix_$kind/$id.wav,$rel/s1/$id.wav,$rel/s2/$id.wav"
      [[ $kind != clean ]] && line="$line,$rel/noise/$id.wav"
      echo "$line,$(cat "$WORK/len_${split}_$id")" >>"$csv"
    done
  done
done

# ---------------------------------------------------------------- wsj0-mix
# The layout of torchaudio's ConvTasNet recipe, over the same mixtures.
for pair in "train-100 tr" "dev cv" "test tt"; do
  read -r split wsj <<<"$pair"
  for kind in "mix_clean mix" "s1 s1" "s2 s2"; do
    read -r from to <<<"$kind"
    dest="$OUT/wsj0-mix/2speakers/wav8k/min/$wsj/$to"
    mkdir -p "$dest"
    ln -f "$MIX_ROOT/$split/$from"/*.wav "$dest/"
  done
done

echo "make_speech.sh: wrote $OUT (LibriSpeech, LibriTTS, Libri2Mix, wsj0-mix)"
