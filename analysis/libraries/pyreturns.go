package libraries

// The interpreter knows the parameters of its compiled functions but not
// what they return: str.split's signature says (self, /, sep=None,
// maxsplit=-1) and nothing of list[str]. Type checkers read that from
// typeshed; kast writes it into the stubs from this table, so that
// `parts = s.split(",")` gives parts list's members and `parts[0]` str's.
// The table is Python, read by stubsScript: "module.Class.method" or
// "module.function" to the return annotation the stub writes.
const stubReturns = `
# Modules written in Python whose classes are compiled (re.Pattern and
# re.Match have no source): introspected like the compiled ones, so that
# a match's members have a declaration, as typeshed's stub gives them.
INTROSPECTED = {"re"}
# The element types of compiled modules' containers, which introspection
# sees only as dict or list: a loop over sys.modules gives str keys.
ATTRIBUTES = {"sys.modules": "dict[str, types.ModuleType]", "sys.argv": "list[str]", "sys.path": "list[str]",
    "sys.orig_argv": "list[str]", "sys.warnoptions": "list[str]", "sys.builtin_module_names": "tuple[str, ...]"}
RETURNS = {}
def returns(owner, annotation, names):
    for n in names.split():
        RETURNS[owner + "." + n] = annotation
for t in ("str", "bytes", "bytearray"):
    own = "builtins." + t
    returns(own, t, "capitalize center expandtabs join ljust lower lstrip removeprefix removesuffix replace rjust rstrip strip swapcase title translate upper zfill __add__ __mul__ __rmul__ __mod__")
    returns(own, "list[%s]" % t, "split rsplit splitlines")
    returns(own, "tuple[%s, %s, %s]" % (t, t, t), "partition rpartition")
    returns(own, "bool", "isalnum isalpha isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle isupper startswith endswith __contains__")
    returns(own, "int", "count find index rfind rindex __len__")
returns("builtins.str", "str", "casefold format format_map __getitem__ __format__")
returns("builtins.str", "bytes", "encode")
returns("builtins.bytes", "str", "decode hex")
returns("builtins.bytearray", "str", "decode hex")
returns("builtins.int", "int", "bit_length bit_count conjugate __abs__ __neg__ __pos__ __index__ __int__")
returns("builtins.int", "bytes", "to_bytes")
returns("builtins.float", "bool", "is_integer")
returns("builtins.float", "str", "hex")
returns("builtins.list", "list", "copy __add__ __mul__")
returns("builtins.dict", "dict", "copy")
returns("builtins.set", "set", "copy difference intersection symmetric_difference union")
returns("builtins.frozenset", "frozenset", "copy difference intersection symmetric_difference union")
returns("builtins", "int", "len ord hash id")
returns("builtins", "str", "repr ascii chr format hex oct bin input")
returns("builtins", "bool", "callable isinstance issubclass hasattr")
returns("builtins", "list", "sorted")
returns("builtins", "_io.TextIOWrapper", "open")
returns("_io", "_io.TextIOWrapper", "open")
returns("re", "Pattern", "compile")
returns("re", "Match | None", "match search fullmatch")
returns("re", "list", "findall split")
returns("re", "str", "sub escape")
returns("re.Pattern", "Match | None", "match search fullmatch")
returns("re.Pattern", "list", "findall split")
returns("re.Pattern", "str", "sub")
returns("re.Match", "str", "group expand")
returns("re.Match", "int", "start end")
returns("re.Match", "tuple[int, int]", "span")
returns("re.Match", "tuple", "groups")
returns("re.Match", "dict", "groupdict")
`
