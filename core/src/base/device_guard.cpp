#include "ember/core/device_guard.h"

#include <atomic>
#include <utility>

#include "ember/core/error.h"

namespace ember {

namespace {
SynchronousDeviceGuardImpl g_cpu_guard_impl(DeviceType::CPU);

std::atomic<DeviceGuardImpl*>& guard_slot(DeviceType type) {
  static std::atomic<DeviceGuardImpl*> slots[kNumDeviceTypes] = {};
  return slots[static_cast<int>(type)];
}
}  // namespace

void SynchronousDeviceGuardImpl::set_device(int16_t index) {
  EMBER_CHECK(index == current_device(), "set_device: ", type_, " has one device (index ",
              current_device(), "), got index ", index);
}

Stream SynchronousDeviceGuardImpl::current_stream(int16_t index) const {
  EMBER_CHECK(index == current_device() || index == -1, "current_stream: ", type_,
              " has no device ", index);
  return Stream{Device(type_, current_device()), 0};
}

void SynchronousDeviceGuardImpl::set_current_stream(Stream stream) {
  EMBER_CHECK(stream.device.type == type_ && stream.id == 0, "set_current_stream: ", type_,
              " has only its default stream, got stream ", stream.id, " on ", stream.device);
}

DeviceGuardImpl* find_device_guard_impl(DeviceType type) {
  if (type == DeviceType::CPU) return &g_cpu_guard_impl;
  return guard_slot(type).load(std::memory_order_acquire);
}

DeviceGuardImpl& get_device_guard_impl(DeviceType type) {
  DeviceGuardImpl* impl = find_device_guard_impl(type);
  EMBER_CHECK(impl != nullptr, "device ", type,
              ": no backend registered (was Ember built with it, and is it linked?)");
  return *impl;
}

void register_device_guard_impl(DeviceType type, DeviceGuardImpl* impl) {
  EMBER_CHECK(type != DeviceType::CPU, "register_device_guard_impl: the CPU's is built in");
  EMBER_CHECK(impl == nullptr || impl->type() == type, "register_device_guard_impl: an impl for ",
              impl->type(), " registered as ", type);
  guard_slot(type).store(impl, std::memory_order_release);
}

Device resolve_device(Device device) {
  if (device.index >= 0 || device.is_cpu()) return device;
  return Device(device.type, get_device_guard_impl(device.type).current_device());
}

int device_count(DeviceType type) {
  DeviceGuardImpl* impl = find_device_guard_impl(type);
  return impl ? impl->device_count() : 0;
}

Stream current_stream(Device device) {
  Device d = resolve_device(device);
  return get_device_guard_impl(d.type).current_stream(d.index);
}

void synchronize(Device device) {
  Device d = resolve_device(device);
  DeviceGuardImpl& impl = get_device_guard_impl(d.type);
  impl.synchronize(impl.current_stream(d.index));
}

DeviceGuard::DeviceGuard(Device device) {
  if (device.index < 0 || device.is_cpu()) return;
  impl_ = &get_device_guard_impl(device.type);
  previous_ = impl_->current_device();
  if (previous_ != device.index) impl_->set_device(device.index);
}

DeviceGuard::~DeviceGuard() {
  if (impl_ && impl_->current_device() != previous_) impl_->set_device(previous_);
}

StreamGuard::StreamGuard(Stream stream) : device_guard_(stream.device) {
  impl_ = &get_device_guard_impl(stream.device.type);
  Device d = resolve_device(stream.device);
  previous_ = impl_->current_stream(d.index);
  impl_->set_current_stream(Stream{d, stream.id});
}

StreamGuard::~StreamGuard() { impl_->set_current_stream(previous_); }

Event::~Event() {
  if (event_) find_device_guard_impl(type_)->destroy_event(event_);
}

Event::Event(Event&& other) noexcept : type_(other.type_), event_(other.event_), recorded_(other.recorded_) {
  other.event_ = nullptr;
  other.recorded_ = false;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    std::swap(type_, other.type_);
    std::swap(event_, other.event_);
    std::swap(recorded_, other.recorded_);
  }
  return *this;
}

void Event::record(Stream stream) {
  EMBER_CHECK(stream.device.type == type_, "Event record: the event is for ", type_, " devices, the stream is on ",
              stream.device);
  const Device d = resolve_device(stream.device);
  get_device_guard_impl(type_).record_event(&event_, Stream{d, stream.id});
  recorded_ = true;
}

void Event::block(Stream stream) const {
  if (!recorded_) return;
  EMBER_CHECK(stream.device.type == type_, "Event block: the event is for ", type_, " devices, the stream is on ",
              stream.device);
  get_device_guard_impl(type_).block_event(event_, Stream{resolve_device(stream.device), stream.id});
}

bool Event::query() const { return !recorded_ || get_device_guard_impl(type_).query_event(event_); }

void Event::synchronize() const {
  if (recorded_) get_device_guard_impl(type_).synchronize_event(event_);
}

void stream_wait_stream(Stream waiter, Stream producer) {
  EMBER_CHECK(waiter.device.type == producer.device.type, "stream_wait_stream: a stream on ", waiter.device,
              " cannot wait for one on ", producer.device, " (different device types)");
  if (waiter == producer) return;
  Event e(producer.device.type);
  e.record(producer);
  e.block(waiter);
  // Destroying the event now is fine: the wait was queued with it.
}

}  // namespace ember
