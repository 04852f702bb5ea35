// Random sampling ops: argument checks, counter reservation and the Tensor
// methods uniform_, normal_, bernoulli_, exponential_, geometric_, random_.
//
// Note [Counter-based random numbers]
// Every sample comes from Philox4x32-10 (kernels/philox.h) keyed by the
// generator's seed: an op reserves a range of block counters [offset, offset +
// blocks) from its Generator, and element i (in row-major logical order) reads
// block offset + i / (4 / words). So a result depends only on the seed, the
// generator's offset and the element's index: it is the same for any thread
// count, any chunking, and any memory layout of the output, and two
// generators with equal state produce equal numbers.
#include <cmath>
#include <functional>
#include <limits>

#include "ember/core/parallel.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "iter/tensor_iterator.h"
#include "kernels/philox.h"
#include "ops/op_utils.h"
#include "kernels/slots/random_kernels.h"

namespace ember {

EMBER_DEFINE_FAMILY_SLOT(random_slot, RandomFn, "random", kRandomDistNames,
                         static_cast<int>(std::size(kRandomDistNames)));
EMBER_DEFINE_SLOT(randperm_slot, RandpermFn, "randperm");
EMBER_DEFINE_SLOT(multinomial_slot, MultinomialFn, "multinomial");

namespace {

Generator& generator_or_default(Generator* g) { return g ? *g : default_generator(); }

// Fills self with samples of dist, reserving the counters it consumes.
Tensor& fill_random(Tensor& self, RandomDist dist, const RandomParams& params, Generator* g,
                    const char* op) {
  EMBER_CHECK(self.defined(), op, ": tensor is undefined");
  if (self.numel() == 0) return self;
  const int64_t per_block = 4 / random_words_per_element(dist, self.dtype());
  const uint64_t blocks = static_cast<uint64_t>(self.numel() / per_block + (self.numel() % per_block != 0));
  const auto [seed, offset] = generator_or_default(g).reserve(blocks);
  if (self.is_contiguous()) {
    random_slot(self.device())(self, dist, params, seed, offset);
    self.bump_version();
  } else {
    // Generate in logical order, so values don't depend on self's strides.
    Tensor tmp = empty_for(op, self.sizes(), self.options());
    random_slot(self.device())(tmp, dist, params, seed, offset);
    self.copy_(tmp);
  }
  return self;
}

void check_floating(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), op, ": tensor is undefined");
  EMBER_CHECK(t.is_floating_point(), op, ": expected a floating point tensor (float16, bfloat16, float32 or float64), got ",
              t.dtype());
}

void check_real_or_bool(DType t, const char* op) {
  EMBER_CHECK(!is_complex(t), op, ": complex dtypes are not supported, got ", t);
}

// Largest integer k such that every integer in [-k, k] is exact in t (floats)
// or the dtype's range (integers).
void integer_bounds(DType t, int64_t& lo, int64_t& hi) {
  switch (t) {
    case DType::Bool: lo = 0, hi = 1; return;
    case DType::UInt8: lo = 0, hi = 255; return;
    case DType::Int8: lo = -128, hi = 127; return;
    case DType::Int16: lo = -32768, hi = 32767; return;
    case DType::Int32: lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max(); return;
    case DType::Int64: lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max(); return;
    case DType::Float16: lo = -(1 << 11), hi = 1 << 11; return;
    case DType::BFloat16: lo = -(1 << 8), hi = 1 << 8; return;
    case DType::Float32: lo = -(1 << 24), hi = 1 << 24; return;
    case DType::Float64: lo = -(int64_t{1} << 53), hi = int64_t{1} << 53; return;
    default: EMBER_FAIL("random_: unsupported dtype ", t);
  }
}

// Uniform integers in [from, to) into self.
Tensor& random_range(Tensor& self, int64_t from, int64_t to, Generator* g, const char* op) {
  EMBER_CHECK(self.defined(), op, ": tensor is undefined");
  check_real_or_bool(self.dtype(), op);
  EMBER_CHECK(from < to, op, ": expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
  int64_t lo, hi;
  integer_bounds(self.dtype(), lo, hi);
  EMBER_CHECK(from >= lo && to - 1 <= hi, op, ": range [", from, ", ", to, ") is out of bounds for ",
              self.dtype(), " (values must lie in [", lo, ", ", hi, "])");
  RandomParams params;
  params.from = from;
  params.range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return fill_random(self, RandomDist::Integer, params, g, op);
}

DType int_dtype_or_long(const TensorOptions& options) { return options.has_dtype() ? options.dtype() : kInt64; }

}  // namespace

// Complex tensors (PyTorch): the real and imaginary parts are sampled
// independently, through a real [..., 2] buffer copied in.
static Tensor& fill_complex(Tensor& self, const std::function<void(Tensor&)>& fill_parts) {
  // Nothing to fill; an empty tensor's other sizes may not even have strides
  // as a [..., 2] buffer (Note [Checked sizes]).
  if (self.numel() == 0) return self;
  DimVector sizes(self.sizes());
  sizes.push_back(2);
  Tensor parts = empty(sizes, TensorOptions(to_real_dtype(self.dtype())).device(self.device()));
  fill_parts(parts);
  self.copy_(parts.view(self.dtype()).squeeze(-1));
  return self;
}

// ---- in-place samplers ----
Tensor& Tensor::uniform_(double from, double to, Generator* generator) {
  if (defined() && is_complex()) {
    return fill_complex(*this, [&](Tensor& parts) { parts.uniform_(from, to, generator); });
  }
  check_floating(*this, "uniform_");
  EMBER_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(std::isfinite(to - from), "uniform_: (to - from) must be finite, got from=", from,
              " and to=", to);
  RandomParams params;
  params.a = from;
  params.b = to;
  return fill_random(*this, RandomDist::Uniform, params, generator, "uniform_");
}

Tensor& Tensor::normal_(double mean, double std, Generator* generator) {
  if (defined() && is_complex()) {
    // Each part gets variance std^2 / 2, so that E|z - mean|^2 = std^2 (PyTorch).
    return fill_complex(*this, [&](Tensor& parts) { parts.normal_(mean, std / std::sqrt(2.0), generator); });
  }
  check_floating(*this, "normal_");
  EMBER_CHECK(std >= 0.0, "normal_: expects std >= 0.0, but found std=", std);
  RandomParams params;
  params.a = mean;
  params.b = std;
  return fill_random(*this, RandomDist::Normal, params, generator, "normal_");
}

Tensor& Tensor::exponential_(double lambd, Generator* generator) {
  check_floating(*this, "exponential_");
  EMBER_CHECK(lambd > 0.0, "exponential_: expects lambda > 0.0, but found lambda=", lambd);
  RandomParams params;
  params.a = lambd;
  return fill_random(*this, RandomDist::Exponential, params, generator, "exponential_");
}

Tensor& Tensor::geometric_(double p, Generator* generator) {
  EMBER_CHECK(defined(), "geometric_: tensor is undefined");
  EMBER_CHECK(!is_complex() && dtype() != kBool, "geometric_: expected a real tensor, got ", dtype());
  EMBER_CHECK(p > 0.0 && p < 1.0, "geometric_: expects p to be in (0, 1), but got p=", p);
  RandomParams params;
  params.a = p;
  return fill_random(*this, RandomDist::Geometric, params, generator, "geometric_");
}

Tensor& Tensor::bernoulli_(double p, Generator* generator) {
  EMBER_CHECK(defined(), "bernoulli_: tensor is undefined");
  check_real_or_bool(dtype(), "bernoulli_");
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_: expects p to be in [0, 1], but got p=", p);
  RandomParams params;
  params.a = p;
  return fill_random(*this, RandomDist::Bernoulli, params, generator, "bernoulli_");
}

Tensor& Tensor::bernoulli_(const Tensor& p, Generator* generator) {
  EMBER_CHECK(defined(), "bernoulli_: tensor is undefined");
  check_real_or_bool(dtype(), "bernoulli_");
  check_floating(p, "bernoulli_");
  Tensor expanded;
  try {
    expanded = p.expand(sizes());
  } catch (const Error&) {
    EMBER_FAIL("bernoulli_: probability tensor of shape ", p.sizes(), " cannot be broadcast to ", sizes());
  }
  EMBER_CHECK(ember::logical_and(ember::ge(p, 0), ember::le(p, 1)).all().item<bool>(),
              "bernoulli_: expects all probabilities to be in [0, 1]");
  RandomParams params;
  // On self's device (a CPU p may meet a CUDA self, as in PyTorch).
  params.p = expanded.to(device(), kFloat64).contiguous();
  return fill_random(*this, RandomDist::BernoulliTensor, params, generator, "bernoulli_");
}

Tensor& Tensor::random_(int64_t from, int64_t to, Generator* generator) {
  return random_range(*this, from, to, generator, "random_");
}

Tensor& Tensor::random_(int64_t to, Generator* generator) {
  return random_range(*this, 0, to, generator, "random_");
}

Tensor& Tensor::random_(Generator* generator) {
  EMBER_CHECK(defined(), "random_: tensor is undefined");
  check_real_or_bool(dtype(), "random_");
  // [0, max] for integers, [0, 2^digits] for floats (PyTorch's random_()).
  int64_t lo, hi;
  integer_bounds(dtype(), lo, hi);
  RandomParams params;
  params.from = 0;
  params.range = static_cast<uint64_t>(hi) + 1;
  return fill_random(*this, RandomDist::Integer, params, generator, "random_");
}

Tensor Tensor::bernoulli(Generator* generator) const { return ember::bernoulli(*this, generator); }
Tensor Tensor::bernoulli(double p, Generator* generator) const {
  return ember::bernoulli(*this, p, generator);
}
Tensor Tensor::multinomial(int64_t num_samples, bool replacement, Generator* generator) const {
  return ember::multinomial(*this, num_samples, replacement, generator);
}

// ---- factories ----
Tensor rand(IntArrayRef size, const TensorOptions& options, Generator* generator) {
  EMBER_CHECK(is_floating_point(options.dtype()) || is_complex(options.dtype()),
              "rand: expected a floating point or complex dtype, got ", options.dtype());
  Tensor t = empty_for("rand", size, options);
  return t.uniform_(0, 1, generator);
}

Tensor randn(IntArrayRef size, const TensorOptions& options, Generator* generator) {
  EMBER_CHECK(is_floating_point(options.dtype()) || is_complex(options.dtype()),
              "randn: expected a floating point or complex dtype, got ", options.dtype());
  Tensor t = empty_for("randn", size, options);
  return t.normal_(0, 1, generator);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options,
               Generator* generator) {
  EMBER_CHECK(low < high, "randint: expected low < high, but got low=", low, " and high=", high);
  Tensor t = empty_for("randint", size, options.dtype(int_dtype_or_long(options)));
  return random_range(t, low, high, generator, "randint");
}

Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options, Generator* generator) {
  return randint(0, high, size, options, generator);
}

Tensor randperm(int64_t n, const TensorOptions& options, Generator* generator) {
  EMBER_CHECK(n >= 0, "randperm: expected n >= 0, but got n=", n);
  const DType dtype = int_dtype_or_long(options);
  check_real_or_bool(dtype, "randperm");
  EMBER_CHECK(dtype != kBool || n <= 2, "randperm: n=", n, " does not fit in bool");
  if (dtype != kBool && n > 0) {
    int64_t lo, hi;
    integer_bounds(dtype, lo, hi);
    EMBER_CHECK(n - 1 <= hi, "randperm: n=", n, " is too large for ", dtype, " (at most ", hi + 1, ")");
  }
  Tensor perm = empty_for("randperm", {n}, TensorOptions(kInt64).device(options.device()));
  if (n > 0) {
    const auto [seed, offset] = generator_or_default(generator).reserve(static_cast<uint64_t>(n));
    randperm_slot(perm.device())(perm, seed, offset);
  }
  return dtype == kInt64 ? perm : perm.to(dtype);
}

Tensor rand_like(const Tensor& t, const TensorOptions& options, Generator* generator) {
  EMBER_CHECK(t.defined(), "rand_like: tensor is undefined");
  return rand(t.sizes(), options.merged_with(t.dtype(), t.device()), generator);
}

Tensor randn_like(const Tensor& t, const TensorOptions& options, Generator* generator) {
  EMBER_CHECK(t.defined(), "randn_like: tensor is undefined");
  return randn(t.sizes(), options.merged_with(t.dtype(), t.device()), generator);
}

Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options,
                    Generator* generator) {
  EMBER_CHECK(t.defined(), "randint_like: tensor is undefined");
  return randint(low, high, t.sizes(), options.merged_with(t.dtype(), t.device()), generator);
}

Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options, Generator* generator) {
  return randint_like(t, 0, high, options, generator);
}

// ---- distributions with tensor parameters ----
Tensor bernoulli(const Tensor& p, Generator* generator) {
  check_floating(p, "bernoulli");
  Tensor out = empty(p.sizes(), p.options());
  return out.bernoulli_(p, generator);
}

Tensor bernoulli(const Tensor& self, double p, Generator* generator) {
  EMBER_CHECK(self.defined(), "bernoulli: tensor is undefined");
  Tensor out = empty(self.sizes(), self.options());
  return out.bernoulli_(p, generator);
}

namespace {
void check_std_tensor(const Tensor& std, const char* op) {
  check_floating(std, op);
  EMBER_CHECK(std.numel() == 0 || ge(std, 0).all().item<bool>(), op,
              ": expects all elements of std >= 0.0");
}
}  // namespace

Tensor normal(const Tensor& mean, const Tensor& std, Generator* generator) {
  check_floating(mean, "normal");
  check_std_tensor(std, "normal");
  const DimVector shape = infer_broadcast_size(mean.sizes(), std.sizes(), "normal");
  const DType dtype = promote_types(mean.dtype(), std.dtype());
  Tensor z = randn(shape, TensorOptions(dtype).device(mean.device()), generator);
  return add(mul(z, std), mean);
}

Tensor normal(const Tensor& mean, double std, Generator* generator) {
  check_floating(mean, "normal");
  EMBER_CHECK(std >= 0.0, "normal: expects std >= 0.0, but found std=", std);
  Tensor z = randn(mean.sizes(), mean.options(), generator);
  return add(mul(z, std), mean);
}

Tensor normal(double mean, const Tensor& std, Generator* generator) {
  check_std_tensor(std, "normal");
  Tensor z = randn(std.sizes(), std.options(), generator);
  return add(mul(z, std), mean);
}

Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options,
              Generator* generator) {
  EMBER_CHECK(is_floating_point(options.dtype()), "normal: expected a floating point dtype, got ",
              options.dtype());
  Tensor t = empty_for("normal", size, options);
  return t.normal_(mean, std, generator);
}

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* generator) {
  const char* op = "multinomial";
  EMBER_CHECK(probs.defined(), op, ": probability tensor is undefined");
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, op, ": prob_dist must be 1 or 2 dim, got ",
              probs.dim(), " dims");
  check_floating(probs, op);
  const int64_t ncat = probs.size(-1);
  EMBER_CHECK(ncat > 0, op, ": prob_dist must have at least one category");
  EMBER_CHECK(ncat <= (int64_t{1} << 24), op, ": number of categories cannot exceed 2^24, got ", ncat);
  EMBER_CHECK(num_samples > 0, op, ": cannot sample n_sample <= 0 samples, got ", num_samples);
  EMBER_CHECK(replacement || num_samples <= ncat, op, ": cannot sample n_sample > prob_dist.size(-1) samples without replacement (",
              num_samples, " > ", ncat, ")");
  Tensor p2 = (probs.dim() == 1 ? probs.unsqueeze(0) : probs).to(kFloat64).contiguous();
  const int64_t rows = p2.size(0);
  Tensor out = empty_for(op, {rows, num_samples}, TensorOptions(kInt64).device(probs.device()));
  if (rows > 0) {
    EMBER_CHECK(logical_and(isfinite(p2), ge(p2, 0)).all().item<bool>(), op,
                ": probability tensor contains either inf, nan or element < 0");
    EMBER_CHECK(gt(p2.sum(IntArrayRef(int64_t{1})), 0).all().item<bool>(), op,
                ": invalid multinomial distribution (sum of probabilities <= 0)");
    if (!replacement)
      EMBER_CHECK(ge(count_nonzero(p2, IntArrayRef(int64_t{1})), num_samples).all().item<bool>(), op,
                  ": invalid multinomial distribution (with replacement=False, not enough non-zero categories to sample ",
                  num_samples, " of them)");
    const uint64_t blocks = static_cast<uint64_t>(rows * (replacement ? num_samples : ncat));
    const auto [seed, offset] = generator_or_default(generator).reserve(blocks);
    multinomial_slot(probs.device())(p2, out, replacement, seed, offset);
  }
  return probs.dim() == 1 ? out.squeeze(0) : out;
}

double uniform_scalar(double low, double high, Generator* generator) {
  EMBER_CHECK(std::isfinite(low) && std::isfinite(high) && low <= high,
              "uniform_scalar: expected finite low <= high, got low=", low, ", high=", high);
  const auto [seed, offset] = generator_or_default(generator).reserve(1);
  const philox::Block b = philox::philox4x32_10(seed, offset);
  const double u = philox::uniform_double(b[0], b[1]);
  const double x = low + u * (high - low);
  // x can round up to high; the result stays in [low, high) unless low == high.
  return x < high || low == high ? x : std::nextafter(high, low);
}

int64_t randint_scalar(int64_t low, int64_t high, Generator* generator) {
  EMBER_CHECK(low < high, "randint_scalar: expected low < high, got low=", low, ", high=", high);
  const auto [seed, offset] = generator_or_default(generator).reserve(1);
  const philox::Block b = philox::philox4x32_10(seed, offset);
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + philox::word64(b[0], b[1]) % range);
}

}  // namespace ember
