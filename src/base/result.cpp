#include "small/base/result.hpp"

namespace small {

std::string Error::describe() const {
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line > 0) {
            out.append(":").append(std::to_string(line));
            if (column > 0) out.append(":").append(std::to_string(column));
        }
        out += ": ";
    }
    return out + message;
}

}  // namespace small
