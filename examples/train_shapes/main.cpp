// A training loop on Ember::core alone (the README's main job is apps/ember-train): generate a
// shapes dataset, train a small CNN with AdamW and a one-cycle schedule,
// evaluate, save a checkpoint (model + optimizer + scheduler) as safetensors,
// load it into a fresh model and check the reloaded model scores the same.
//
//   ember_train_shapes [--epochs 4] [--train 12000] [--test 2000] [--batch 64]
//                      [--lr 0.005] [--threads 0] [--channels-last]
//                      [--checkpoint shapes.safetensors] [--min-accuracy 0]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ember/ember.h>

#include "shapes_dataset.h"
#include "shapes_net.h"

namespace {

using namespace ember;
namespace F = ember::nn::functional;

struct Args {
  int64_t epochs = 4, train = 12000, test = 2000, batch = 64, threads = 0;
  double lr = 5e-3, min_accuracy = 0;
  bool channels_last = false;
  std::string checkpoint = "shapes.safetensors";
};

constexpr const char* kUsage =
    "usage: ember_train_shapes [--epochs N] [--train N] [--test N] [--batch N] [--lr X]\n"
    "       [--threads N] [--channels-last] [--checkpoint PATH] [--min-accuracy X]\n";

[[noreturn]] void usage(const char* bad) {
  std::fprintf(stderr, "ember_train_shapes: bad argument '%s'\n%s", bad, kUsage);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(argv[i]);
      return argv[++i];
    };
    auto integer = [&] {
      const char* v = value();
      char* end = nullptr;
      const long long n = std::strtoll(v, &end, 10);
      if (*end != '\0' || n < 0) usage(v);
      return static_cast<int64_t>(n);
    };
    auto real = [&] {
      const char* v = value();
      char* end = nullptr;
      const double x = std::strtod(v, &end);
      if (*end != '\0' || !(x >= 0)) usage(v);
      return x;
    };
    if (flag == "--help" || flag == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (flag == "--epochs") a.epochs = integer();
    else if (flag == "--train") a.train = integer();
    else if (flag == "--test") a.test = integer();
    else if (flag == "--batch") a.batch = integer();
    else if (flag == "--threads") a.threads = integer();
    else if (flag == "--lr") a.lr = real();
    else if (flag == "--min-accuracy") a.min_accuracy = real();
    else if (flag == "--channels-last") a.channels_last = true;
    else if (flag == "--checkpoint") a.checkpoint = value();
    else usage(argv[i]);
  }
  if (a.epochs < 1 || a.train < a.batch || a.test < 1 || a.batch < 2) usage("sizes");
  return a;
}

Tensor to_layout(const Tensor& images, bool channels_last) {
  return channels_last ? images.contiguous(MemoryFormat::ChannelsLast) : images;
}

// Accuracy over the dataset in eval mode, in batches.
double evaluate(shapes::ShapesNet& net, const shapes::Dataset& data, int64_t batch, bool channels_last) {
  net->eval();
  NoGradGuard no_grad;
  int64_t correct = 0;
  for (int64_t start = 0; start < data.size(); start += batch) {
    const int64_t len = std::min(batch, data.size() - start);
    Tensor logits = net(to_layout(data.images.narrow(0, start, len), channels_last));
    correct += logits.argmax(1).eq(data.labels.narrow(0, start, len)).sum().item<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(data.size());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  if (args.threads > 0) set_num_threads(static_cast<int>(args.threads));
  manual_seed(0);

  auto t0 = std::chrono::steady_clock::now();
  const shapes::Dataset train = shapes::generate(args.train, 1);
  const shapes::Dataset test = shapes::generate(args.test, 2);
  std::printf("data: %lld training and %lld test images of %zu classes, generated in %.2f s\n",
              static_cast<long long>(train.size()), static_cast<long long>(test.size()),
              shapes::kClassNames.size(), seconds_since(t0));

  shapes::ShapesNet net(static_cast<int64_t>(shapes::kClassNames.size()));
  if (args.channels_last) net->to(MemoryFormat::ChannelsLast);
  int64_t num_params = 0;
  for (const Tensor& p : net->parameters()) num_params += p.numel();
  std::printf("model: %lld parameters%s\n", static_cast<long long>(num_params),
              args.channels_last ? ", channels-last" : "");

  const int64_t steps_per_epoch = args.train / args.batch;  // the last partial batch is dropped
  optim::AdamW optimizer(net->parameters(), {.lr = args.lr, .weight_decay = 1e-4});
  optim::OneCycleLR scheduler(optimizer, {.max_lr = {args.lr}, .epochs = args.epochs, .steps_per_epoch = steps_per_epoch});

  for (int64_t epoch = 1; epoch <= args.epochs; ++epoch) {
    auto te = std::chrono::steady_clock::now();
    net->train();
    Tensor order = randperm(train.size());
    double loss_sum = 0;
    int64_t correct = 0;
    for (int64_t step = 0; step < steps_per_epoch; ++step) {
      Tensor idx = order.narrow(0, step * args.batch, args.batch);
      Tensor images = to_layout(train.images.index_select(0, idx), args.channels_last);
      Tensor labels = train.labels.index_select(0, idx);
      optimizer.zero_grad();
      Tensor logits = net(images);
      Tensor loss = F::cross_entropy(logits, labels, {.label_smoothing = 0.05});
      loss.backward();
      optimizer.step();
      scheduler.step();
      loss_sum += loss.item<double>();
      correct += logits.argmax(1).eq(labels).sum().item<int64_t>();
    }
    const double train_acc = static_cast<double>(correct) / static_cast<double>(steps_per_epoch * args.batch);
    const double test_acc = evaluate(net, test, 256, args.channels_last);
    std::printf("epoch %lld/%lld  loss %.4f  train acc %.2f%%  test acc %.2f%%  lr %.5f  %.1f s\n",
                static_cast<long long>(epoch), static_cast<long long>(args.epochs), loss_sum / steps_per_epoch,
                100 * train_acc, 100 * test_acc, scheduler.get_last_lr()[0], seconds_since(te));
  }
  const double final_acc = evaluate(net, test, 256, args.channels_last);

  // One checkpoint file: model tensors, optimizer state tensors, and the rest as metadata.
  StateDict tensors = net->state_dict();
  Metadata meta{{"epochs", std::to_string(args.epochs)}, {"test_accuracy", std::to_string(final_acc)}};
  optim::write_optimizer_state(optimizer.state_dict(), tensors, meta);
  optim::write_scheduler_state(scheduler.state_dict(), meta);
  save(args.checkpoint, tensors, meta);

  // Reload into fresh objects, as a resumed run or a deployment would.
  Metadata loaded_meta;
  StateDict loaded = load(args.checkpoint, &loaded_meta);
  shapes::ShapesNet restored(static_cast<int64_t>(shapes::kClassNames.size()));
  if (args.channels_last) restored->to(MemoryFormat::ChannelsLast);
  nn::IncompatibleKeys keys = restored->load_state_dict(loaded, /*strict=*/false);
  optim::AdamW restored_optimizer(restored->parameters(), {.lr = args.lr});
  restored_optimizer.load_state_dict(optim::read_optimizer_state(loaded, loaded_meta));
  const double restored_acc = evaluate(restored, test, 256, args.channels_last);
  std::printf("checkpoint: %s (%lld model tensors, %zu optimizer/other entries); reloaded model: test acc %.2f%%\n",
              args.checkpoint.c_str(), static_cast<long long>(net->state_dict().size()), keys.unexpected_keys.size(),
              100 * restored_acc);
  std::printf("total time %.1f s\n", seconds_since(t0));

  if (!keys.missing_keys.empty() || restored_acc != final_acc) {
    std::fprintf(stderr, "ember_train_shapes: the reloaded model differs from the trained one\n");
    return 1;
  }
  if (final_acc < args.min_accuracy) {
    std::fprintf(stderr, "ember_train_shapes: test accuracy %.4f is below --min-accuracy %.4f\n", final_acc,
                 args.min_accuracy);
    return 1;
  }
  return 0;
}
