// A view of contiguous elements, as preCICE's API takes them
// (precice::span): from a pointer and a size, from a C array, from any
// container with data() and size() (std::vector, std::array, std::string),
// and, for span<const char>, from a NUL-terminated string.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

namespace precice {

template <class T>
class span {
public:
  using element_type = T;
  using value_type   = typename std::remove_cv<T>::type;
  using size_type    = std::size_t;
  using pointer      = T *;
  using reference    = T &;
  using iterator     = T *;

  constexpr span() noexcept = default;
  constexpr span(pointer ptr, size_type count) noexcept : _data(ptr), _size(count) {}
  constexpr span(pointer first, pointer last) noexcept : _data(first), _size(static_cast<size_type>(last - first)) {}

  // (char arrays are strings: the NUL-terminated constructor below measures them)
  template <std::size_t N, class U = T,
            class = typename std::enable_if<!std::is_same<typename std::remove_cv<U>::type, char>::value>::type>
  constexpr span(element_type (&arr)[N]) noexcept : _data(arr), _size(N) {}

  // Any contiguous container whose elements convert to T without copying.
  template <class Container,
            class = typename std::enable_if<
                !std::is_array<typename std::remove_reference<Container>::type>::value &&
                std::is_convertible<decltype(std::declval<Container &>().data()), pointer>::value>::type,
            class = decltype(std::declval<Container &>().size())>
  constexpr span(Container &c) : _data(c.data()), _size(c.size()) {}

  template <class Container,
            class = typename std::enable_if<
                std::is_const<T>::value &&
                std::is_convertible<decltype(std::declval<const Container &>().data()), pointer>::value>::type,
            class = decltype(std::declval<const Container &>().size())>
  constexpr span(const Container &c) : _data(c.data()), _size(c.size()) {}

  // A NUL-terminated string as span<const char> (the string_view of names).
  template <class U = T, class = typename std::enable_if<std::is_same<U, const char>::value>::type>
  span(const char *s) : _data(s), _size(s ? std::strlen(s) : 0) {}

  template <class U, class = typename std::enable_if<std::is_convertible<U (*)[], T (*)[]>::value>::type>
  constexpr span(const span<U> &other) noexcept : _data(other.data()), _size(other.size()) {}

  constexpr pointer   data() const noexcept { return _data; }
  constexpr size_type size() const noexcept { return _size; }
  constexpr bool      empty() const noexcept { return _size == 0; }
  constexpr reference operator[](size_type i) const { return _data[i]; }
  constexpr iterator  begin() const noexcept { return _data; }
  constexpr iterator  end() const noexcept { return _data + _size; }

private:
  pointer   _data = nullptr;
  size_type _size = 0;
};

} // namespace precice
