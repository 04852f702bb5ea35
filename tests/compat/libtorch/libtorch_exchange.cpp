// A libtorch program (linked against Debian's libtorch-dev, not Ember) that
// exchanges archives with Ember through torch::save / torch::load:
//   libtorch_exchange write DIR   writes libtorch_*.pt into DIR (the committed
//                                 fixtures, scripts/fixtures/torch_compat_libtorch.py);
//   libtorch_exchange check DIR   reads the ember_*.pt files that Ember's
//                                 LibtorchExchange.WriteForLibtorch wrote into DIR,
//                                 checks them against its own run of the same
//                                 recipes (tests/compat/libtorch_exchange_recipes.h),
//                                 then writes libtorch_*.pt for
//                                 LibtorchExchange.ReadFromLibtorch.
// Files: <name>_net.pt (the Net after 3 steps of optimizer <name>),
// <name>_<optimizer>.pt (that optimizer), <name>_init_net.pt (the untrained Net,
// shifted by 1), <name>_tensor.pt and <name>_tensors.pt, and through streams
// <name>_custom.pt (an OutputArchive built key by key) and
// <name>_stream_tensors.pt (torch::save of a tensor list to a std::ostream). Exit code 0 when every
// check passes; each failure is printed.
#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "../libtorch_exchange_recipes.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}

bool params_close(exchange::Net& a, exchange::Net& b, double rtol, double atol) {
  auto pa = a->parameters(), pb = b->parameters();
  if (pa.size() != pb.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i)
    if (!torch::allclose(pa[i], pb[i], rtol, atol)) return false;
  return true;
}

void write(const std::string& dir) {
  const std::string p = dir + "/libtorch_";
  exchange::Net init = exchange::make_net(1.0);
  torch::save(init, p + "init_net.pt");
  for (const std::string& name : exchange::optimizer_names()) {
    exchange::Net net = exchange::make_net();
    auto optimizer = exchange::make_optimizer(name, net);
    exchange::train(net, *optimizer, 3);
    torch::save(net, p + name + "_net.pt");
    torch::save(*optimizer, p + name + ".pt");
  }
  torch::save(exchange::single_tensor(), p + "tensor.pt");
  torch::save(exchange::tensor_list(), p + "tensors.pt");
  // Through streams: an archive built key by key, and torch::save's.
  std::ofstream custom(p + "custom.pt", std::ios::binary);
  torch::serialize::OutputArchive archive;
  exchange::write_custom_archive(archive);
  archive.save_to(custom);
  std::ofstream stream_tensors(p + "stream_tensors.pt", std::ios::binary);
  torch::save(exchange::tensor_list(), stream_tensors);
  for (const std::string& name : exchange::sampler_names()) {
    auto sampler = exchange::make_sampler(name);
    sampler->next(3);
    torch::save(*sampler, p + "sampler_" + name + ".pt");
    torch::save(exchange::drain(*sampler), p + "sampler_" + name + "_rest.pt");
  }
  torch::data::samplers::StreamSampler stream_sampler(10);
  stream_sampler.next(4);
  torch::save(stream_sampler, p + "sampler_stream.pt");
}

void check(const std::string& dir) {
  const std::string p = dir + "/ember_";
  // The module archive: the same parameters, bit for bit.
  exchange::Net loaded_init;
  torch::load(loaded_init, p + "init_net.pt");
  exchange::Net expected_init = exchange::make_net(1.0);
  expect(params_close(loaded_init, expected_init, 0, 0), "init_net.pt: parameters differ");

  for (const std::string& name : exchange::optimizer_names()) {
    exchange::Net own = exchange::make_net();
    auto own_optimizer = exchange::make_optimizer(name, own);
    exchange::train(own, *own_optimizer, 3);
    const exchange::Tolerance tol = exchange::tolerance(name);
    // Ember's net and optimizer after the same 3 steps ...
    exchange::Net loaded = exchange::make_net();
    torch::load(loaded, p + name + "_net.pt");
    auto loaded_optimizer = exchange::make_optimizer(name, loaded);
    torch::load(*loaded_optimizer, p + name + ".pt");
    expect(params_close(loaded, own, tol.rtol, tol.atol), name + "_net.pt: parameters differ from libtorch's 3 steps");
    expect(loaded_optimizer->state().size() == own_optimizer->state().size(),
           name + ".pt: " + std::to_string(loaded_optimizer->state().size()) + " parameter states, libtorch has " +
               std::to_string(own_optimizer->state().size()));
    // ... continue as libtorch's own: the state carried the momentum, averages and step counts.
    exchange::train(own, *own_optimizer, 2);
    exchange::train(loaded, *loaded_optimizer, 2);
    expect(params_close(loaded, own, tol.rtol, tol.atol), name + ".pt: 2 more steps from Ember's state differ from libtorch's");
  }

  torch::Tensor t;
  torch::load(t, p + "tensor.pt");
  expect(t.dtype() == torch::kFloat64 && torch::equal(t, exchange::single_tensor()), "tensor.pt differs");
  std::vector<torch::Tensor> list;
  torch::load(list, p + "tensors.pt");
  const std::vector<torch::Tensor> expected = exchange::tensor_list();
  expect(list.size() == expected.size(), "tensors.pt: " + std::to_string(list.size()) + " tensors");
  for (size_t i = 0; i < list.size() && i < expected.size(); ++i)
    expect(list[i].dtype() == expected[i].dtype() && torch::equal(list[i], expected[i]),
           "tensors.pt: tensor " + std::to_string(i) + " differs");

  std::ifstream custom(p + "custom.pt", std::ios::binary);
  torch::serialize::InputArchive archive;
  archive.load_from(custom);
  const std::string custom_error = exchange::check_custom_archive(archive);
  expect(custom_error.empty(), "custom.pt: " + custom_error);
  std::ifstream stream_tensors(p + "stream_tensors.pt", std::ios::binary);
  std::vector<torch::Tensor> streamed;
  torch::load(streamed, stream_tensors);
  expect(streamed.size() == expected.size(), "stream_tensors.pt: " + std::to_string(streamed.size()) + " tensors");
  for (size_t i = 0; i < streamed.size() && i < expected.size(); ++i)
    expect(streamed[i].dtype() == expected[i].dtype() && torch::equal(streamed[i], expected[i]),
           "stream_tensors.pt: tensor " + std::to_string(i) + " differs");

  for (const std::string& name : exchange::sampler_names()) {
    auto sampler = exchange::make_sampler(name, /*fresh=*/true);
    torch::load(*sampler, p + "sampler_" + name + ".pt");
    torch::Tensor rest;
    torch::load(rest, p + "sampler_" + name + "_rest.pt");
    const torch::Tensor drawn = exchange::drain(*sampler);
    expect(drawn.sizes() == rest.sizes() && torch::equal(drawn, rest),
           "sampler_" + name + ".pt: the rest of the epoch differs");
  }
  torch::data::samplers::StreamSampler stream_sampler(10);
  torch::load(stream_sampler, p + "sampler_stream.pt");
  expect(stream_sampler.next(10)->size() == 6, "sampler_stream.pt: not 4 of 10 examples retrieved");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "write" && std::string(argv[1]) != "check")) {
    std::cerr << "usage: libtorch_exchange write|check DIR\n";
    return 2;
  }
  try {
    if (std::string(argv[1]) == "check") check(argv[2]);
    write(argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "FAILED: " << e.what() << "\n";
    return 1;
  }
  if (failures == 0) std::cout << "libtorch_exchange: all checks passed\n";
  return failures == 0 ? 0 : 1;
}
