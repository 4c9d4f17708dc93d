#include "platforms/thread_class.h"
