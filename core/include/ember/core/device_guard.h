#pragma once
// Streams and device guards: the per-device-type state a backend manages
// (which device index is current, which stream work is queued on), declared
// here so that core and every library code against one interface. The CPU's
// implementation is built in and does nothing: one device, one stream, work
// done when the call returns. A GPU backend registers its own
// (register_device_guard_impl) when it is linked.
#include <cstdint>

#include "ember/core/device.h"

namespace ember {

// A queue of work on one device. id 0 is the device's default stream; other
// ids are the backend's own handles (for CUDA the cudaStream_t's bits).
struct Stream {
  Device device;
  uint64_t id = 0;
  friend bool operator==(Stream a, Stream b) { return a.device == b.device && a.id == b.id; }
};

// What a device backend implements for its device type.
class DeviceGuardImpl {
 public:
  virtual ~DeviceGuardImpl() = default;
  virtual DeviceType type() const = 0;
  virtual int device_count() const = 0;
  virtual int16_t current_device() const = 0;
  virtual void set_device(int16_t index) = 0;
  virtual Stream current_stream(int16_t index) const = 0;
  virtual void set_current_stream(Stream stream) = 0;
  // Returns when all work queued on `stream` so far has finished.
  virtual void synchronize(Stream stream) const = 0;

  // Events (c10's DeviceGuardImplInterface record/block/queryEvent), behind
  // core's Event below: `*event` is the backend's opaque handle, created by
  // the first record_event (on the stream's device). A synchronous device has
  // finished its work when a call returns, so the defaults do nothing: its
  // events are always complete and nothing ever needs to wait.
  virtual void record_event(void** event, Stream stream) const {
    (void)event;
    (void)stream;
  }
  // Makes `stream` wait (without blocking the host) for the work recorded.
  virtual void block_event(void* event, Stream stream) const {
    (void)event;
    (void)stream;
  }
  virtual bool query_event(void* event) const {
    (void)event;
    return true;
  }
  virtual void synchronize_event(void* event) const { (void)event; }
  virtual void destroy_event(void* event) const noexcept { (void)event; }
};

// A device type whose work runs synchronously on the host thread (CPU, and
// the test device): one device (index 0), only the default stream.
class SynchronousDeviceGuardImpl final : public DeviceGuardImpl {
 public:
  explicit constexpr SynchronousDeviceGuardImpl(DeviceType type) : type_(type) {}
  DeviceType type() const override { return type_; }
  int device_count() const override { return 1; }
  int16_t current_device() const override { return type_ == DeviceType::CPU ? -1 : 0; }
  void set_device(int16_t index) override;
  Stream current_stream(int16_t index) const override;
  void set_current_stream(Stream stream) override;
  void synchronize(Stream) const override {}

 private:
  DeviceType type_;
};

// Null when no backend for `type` is linked (get_device_guard_impl raises then).
DeviceGuardImpl* find_device_guard_impl(DeviceType type);
DeviceGuardImpl& get_device_guard_impl(DeviceType type);
void register_device_guard_impl(DeviceType type, DeviceGuardImpl* impl);

// `device` with index -1 replaced by the current device of its type (CPU keeps -1).
Device resolve_device(Device device);
int device_count(DeviceType type);
Stream current_stream(Device device);
void synchronize(Device device);

// A marker in a stream's queue (c10::Event): record() marks the work queued so
// far, block() makes another stream wait for it, query()/synchronize() ask the
// host. Device-generic: the device type's DeviceGuardImpl does the work (no-ops
// for the CPU and other synchronous devices). Move-only.
class Event {
 public:
  explicit Event(DeviceType type) : type_(type) {}
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(Stream stream);
  // Nothing to wait for when never recorded.
  void block(Stream stream) const;
  bool query() const;
  void synchronize() const;
  bool was_recorded() const { return recorded_; }
  DeviceType device_type() const { return type_; }

 private:
  DeviceType type_;
  void* event_ = nullptr;
  bool recorded_ = false;
};

// Makes `waiter` wait for the work queued on `producer` so far, without
// blocking the host (torch.cuda.Stream.wait_stream): an event recorded on the
// producer, blocked on by the waiter. Nothing when they are one stream or the
// device type runs synchronously. Both streams must be of one device type.
void stream_wait_stream(Stream waiter, Stream producer);

// Makes `device` the current device of its type for the guard's lifetime
// (c10::DeviceGuard). Index -1 changes nothing.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  DeviceGuardImpl* impl_ = nullptr;
  int16_t previous_ = -1;
};

// Makes `stream` current on its device for the guard's lifetime (and its
// device current, as DeviceGuard).
class StreamGuard {
 public:
  explicit StreamGuard(Stream stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  DeviceGuard device_guard_;
  DeviceGuardImpl* impl_ = nullptr;
  Stream previous_;
};

}  // namespace ember
