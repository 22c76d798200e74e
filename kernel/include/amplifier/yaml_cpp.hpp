// yaml-cpp, included the one way the project includes it. Whoever includes this links
// yaml-cpp itself (the kernel links it privately).
#pragma once
// GCC 12+ misreads yaml-cpp's Node::Scalar() (it throws a temporary) as a dangling pointer.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#include <yaml-cpp/yaml.h>
#pragma GCC diagnostic pop
#else
#include <yaml-cpp/yaml.h>
#endif
