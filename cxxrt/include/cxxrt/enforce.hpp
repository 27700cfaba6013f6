// Included last by every C++ source that goes into a module: names that must
// not be used in kernel C++ become compile errors (the Zircon trick).
#pragma once

#ifndef CXXRT_HOST
#pragma GCC poison malloc calloc realloc free printf sprintf snprintf strcpy strcat
#pragma GCC poison typeid dynamic_cast throw try catch
#pragma GCC poison initializer_list new_handler set_new_handler
#endif
