// Generator state, seeding and serialization.
#include "ember/core/generator.h"

#include <cstring>
#include <random>

#include "ember/ops/factories.h"

namespace ember {

Generator::Generator(const Generator& other) {
  std::lock_guard<std::mutex> lock(other.mutex_);
  seed_ = other.seed_;
  offset_ = other.offset_;
}

Generator& Generator::operator=(const Generator& other) {
  if (this == &other) return *this;
  uint64_t seed, offset;
  {
    std::lock_guard<std::mutex> lock(other.mutex_);
    seed = other.seed_;
    offset = other.offset_;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = offset;
  return *this;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::seed() {
  std::random_device device;
  const uint64_t s = (static_cast<uint64_t>(device()) << 32) | device();
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return offset_;
}

Tensor Generator::get_state() const {
  Tensor state = empty({16}, kUInt8);
  std::lock_guard<std::mutex> lock(mutex_);
  std::memcpy(state.data_ptr<uint8_t>(), &seed_, 8);
  std::memcpy(state.data_ptr<uint8_t>() + 8, &offset_, 8);
  return state;
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK(state.defined() && state.dtype() == kUInt8 && state.numel() == 16 && state.is_cpu(),
              "Generator::set_state: expected a CPU uint8 tensor of 16 elements (from get_state()), got ",
              state.defined() ? state.toString() : std::string("an undefined tensor"));
  const Tensor bytes = state.contiguous();
  std::lock_guard<std::mutex> lock(mutex_);
  std::memcpy(&seed_, bytes.data_ptr<uint8_t>(), 8);
  std::memcpy(&offset_, bytes.data_ptr<uint8_t>() + 8, 8);
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t first = offset_;
  offset_ += blocks;
  return {seed_, first};
}

namespace {
thread_local Generator* scoped_generator = nullptr;
}  // namespace

Generator& global_generator() {
  static Generator generator;
  return generator;
}

Generator& default_generator() { return scoped_generator ? *scoped_generator : global_generator(); }

GeneratorScope::GeneratorScope(Generator& generator) : previous_(scoped_generator) {
  scoped_generator = &generator;
}

GeneratorScope::~GeneratorScope() { scoped_generator = previous_; }

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace ember
