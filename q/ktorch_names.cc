#include "q/ktorch_names.h"

namespace kscope::q {

absl::Span<const char* const> KtorchNames() {
  static constexpr const char* kNames[] = {
    "dv", "tree", "addref", "free", "return", "use", "obj", "tensorcount", "to", "copyto", "info",
    "detail", "state", "setting", "config", "version", "cudadevice", "cudadevices", "sync", "seed",
    "png", "dim", "densedim", "sparsedim", "nnz", "numel", "elements", "itemsize", "bytes",
    "offset", "ptr", "sptr", "ref", "sref", "result", "weakref", "class", "mapped", "objtype",
    "device", "dtype", "ktype", "gradfn", "gradient", "layout", "memory", "inputmodule",
    "outputmodule", "defined", "coalesced", "contiguous", "leaf", "pinned", "sparseflag", "size",
    "stride", "str", "options", "help", "resolve", "alias", "amend", "cat", "coalesce", "dense",
    "detach", "dict", "dirac", "expand", "eye", "filldiagonal", "fill", "gain", "gradflag", "grad",
    "imag", "indices", "index", "isreal", "knormal", "kuniform", "makegrid", "narrow", "ones",
    "orthogonal", "permute", "real", "reset", "reshape", "resize", "same", "snormal", "sparseindex",
    "sparse", "squeeze", "stack", "tensor", "transpose", "unsqueeze", "values", "vector", "View",
    "xnormal", "xuniform", "zeros", "Abs", "Acos", "add", "addbmm", "addmm", "addmv", "addr",
    "addcdiv", "addcmul", "All", "allclose", "amax", "amin", "aminmax", "angle", "Any", "argmax",
    "argmin", "argsort", "Asin", "Atan", "atan2", "baddbmm", "bartlett", "bernoulli", "blackman",
    "bincount", "bitwisenot", "bmm", "cauchy", "ceil", "chol", "cholx", "cholinverse", "cholsolve",
    "clamp", "close", "Cos", "cosh", "Cross", "cumprod", "cumsum", "det", "diag", "diagflat",
    "diagonal", "digamma", "dist", "Div", "dot", "eig", "eigh", "eigvals", "eigvalsh", "eq",
    "equal", "erf", "erfc", "erfinv", "Exp", "expm1", "exponential", "fft", "fft2", "fftfreq",
    "fftn", "fftshift", "finite", "Flip", "Floor", "fmax", "fmin", "fmod", "fnorm", "fpow", "frac",
    "ge", "geometric", "gt", "hann", "hamming", "hfft", "hfft2", "hfftn", "histc", "inverse",
    "ifft", "ifft2", "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "In", "inf", "irfft",
    "irfft2", "irfftn", "kaiser", "kthvalue", "le", "lerp", "lgamma", "Log", "log10", "log1p",
    "log2", "logdet", "lognormal", "logsumexp", "lstsq", "lt", "lu", "lun", "lux", "lusolve",
    "matmul", "multinomial", "outer", "power", "mrank", "Max", "maximum", "mean", "meanstd",
    "meanvar", "median", "Min", "minimum", "mm", "mmt", "mnorm", "mode", "msort", "mtm", "mul",
    "multidot", "mv", "mvlgamma", "nan", "nanmean", "nanmedian", "nansum", "ne", "Neg", "neginf",
    "Not", "nnorm", "normal", "householder", "pinverse", "pow", "posinf", "prod", "qr", "random",
    "Reciprocal", "remainder", "roll", "renorm", "rfft", "rfft2", "rfftfreq", "rfftn", "round",
    "rsqrt", "sigmoid", "sgn", "sign", "Sin", "sinh", "slogdet", "solve", "sort", "Sqrt", "std",
    "Sum", "svd", "svdvals", "Tan", "tanh", "tensordot", "topk", "trace", "tril", "triu",
    "trisolve", "trunc", "uniform", "unique", "uniquec", "variance", "vnorm", "xor", "seq",
    "module", "adaptavg1d", "adaptavg2d", "adaptavg3d", "adaptmax1d", "adaptmax2d", "adaptmax3d",
    "avgpool1d", "avgpool2d", "avgpool3d", "bilinear", "callbacks", "celu", "elu", "flatten",
    "fmaxpool2d", "fmaxpool3d", "fold", "glu", "hardshrink", "hardtanh", "interpolate", "leakyrelu",
    "linear", "logsigmoid", "logsoftmax", "lppool1d", "lppool2d", "maxpool1d", "maxpool2d",
    "maxpool3d", "normalize", "onehot", "pad", "pairwise", "pdist", "prelu", "randomcrop",
    "randomflip", "relu6", "relu", "rrelu", "selu", "similar", "softmax", "softmin", "softplus",
    "softshrink", "softsign", "tanhshrink", "threshold", "unfold", "zscore", "loss", "bce",
    "bcelogit1", "bcelogit2", "ce", "cosineloss", "ctc", "hinge", "huber", "kl", "l1", "margin",
    "mse", "multilabel", "multimargin", "multisoft", "nll", "poissonloss", "smoothl1", "softmargin",
    "triplet", "opt", "step", "lr", "avgparms", "backstep", "backward", "batchinit", "batch",
    "batchnorm", "buffer", "buffernames", "buffers", "child", "childnames", "children", "clip",
    "clipv", "clone", "copyparms", "data", "datasize", "eforward", "evaluate", "forward", "freeze",
    "input", "kforward", "model", "modules", "moduletypes", "names", "nforward", "nograd", "parm",
    "parmnames", "parms", "parmtypes", "restore", "run", "shuffle", "target", "testbatch",
    "testdata", "testinit", "testinput", "test", "testsize", "testrestore", "testrun", "testtarget",
    "training", "train", "unfreeze", "unshuffle", "zerograd",
  };
  return kNames;
}

}  // namespace kscope::q
