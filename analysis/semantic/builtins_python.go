package semantic

// pythonBuiltins are the names Python binds in every module: the builtins
// module, the module attributes and, for code that still runs on it,
// Python 2's builtins.
var pythonBuiltins = setOf(
	"ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
	"BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
	"ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
	"DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
	"ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError",
	"FutureWarning", "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError",
	"IndexError", "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt",
	"LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None", "NotADirectoryError",
	"NotImplemented", "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning",
	"PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning",
	"RuntimeError", "RuntimeWarning", "StandardError", "StopAsyncIteration", "StopIteration",
	"SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True",
	"TypeError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
	"UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning", "WindowsError",
	"ZeroDivisionError", "__annotations__", "__build_class__", "__builtins__", "__cached__",
	"__class__", "__debug__", "__dict__", "__doc__", "__file__", "__import__", "__loader__",
	"__module__", "__name__", "__package__", "__path__", "__qualname__", "__spec__", "__version__",
	"abs", "aiter", "all", "anext", "any", "apply", "ascii", "basestring", "bin", "bool",
	"breakpoint", "buffer", "bytearray", "bytes", "callable", "chr", "classmethod", "cmp", "coerce",
	"compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate",
	"eval", "exec", "execfile", "exit", "file", "filter", "float", "format", "frozenset", "getattr",
	"globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "intern", "isinstance",
	"issubclass", "iter", "len", "license", "list", "locals", "long", "map", "max", "memoryview",
	"min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range",
	"raw_input", "reduce", "repr", "reveal_locals", "reveal_type", "reversed", "round", "set",
	"setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "unichr",
	"unicode", "vars", "xrange", "zip",
)
