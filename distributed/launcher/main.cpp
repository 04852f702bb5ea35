// ember-run: torchrun for Ember programs (docs/distributed.md, "Launcher:
// ember-run"). `ember-run --help` lists the flags.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "agent.h"
#include "launch_options.h"

int main(int argc, char** argv) {
  namespace launcher = ember::distributed::launcher;
  const std::vector<std::string> args(argv, argv + argc);
  if (args.size() < 2 || args[1] == "--help" || args[1] == "-h") {
    std::fputs(launcher::launch_usage().c_str(), args.size() < 2 ? stderr : stdout);
    return args.size() < 2 ? 2 : 0;
  }
  launcher::LaunchOptions options;
  try {
    options = launcher::parse_launch_options(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  try {
    return launcher::run_agent(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember-run: %s\n", e.what());
    return 1;
  }
}
