package lsp

import (
	"slices"
	"testing"
)

// A standard-library class built on a compiled module's class (socket's
// on _socket's) lists the compiled class's members too, and a module
// that star-imports a compiled module lists its names (socket.SOCK_STREAM).
// A class named itself, or a class method's cls, has the members of type,
// its class.
func TestLSPPythonCompiledBases(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/socket.py": "import _socket\nfrom _socket import *\n\n\nclass socket(_socket.socket):\n    def close(self):\n        pass\n",
		"pybuiltins/_socket.pyi": "SOCK_STREAM: int\nSCM_RIGHTS: int\nclass socket():\n    def connect(self, address, /): ...\n" +
			"    def connect_ex(self, address, /): ...\n    def close(self): ...\n",
		"pybuiltins/builtins.pyi": pyObject + "class type():\n    __base__: type\n    __bases__: tuple\n    def mro(self): ...\n",
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/app.py": "import socket\n\ns = socket.socket()\ns.c\nsocket.S\nsocket.socket.__ba\ns.__ba\n\n\n" +
			"class View:\n    def __init_subclass__(cls):\n        cls.__ba\n\n    @classmethod\n    def make(cls):\n        cls.__ba\n\n" +
			"    def own(self):\n        self.__ba\n",
	}, 2)
	for _, c := range []struct {
		line, char int
		want       []string
	}{
		{3, 3, []string{"close", "connect", "connect_ex", "__class__"}},
		{4, 8, []string{"SCM_RIGHTS", "SOCK_STREAM", "socket"}},
		// The class itself has its class's (type's) members; an instance not.
		{5, 18, []string{"__base__", "__bases__"}},
		{6, 6, nil},
		// cls of __init_subclass__ and of a class method is the class.
		{11, 14, []string{"__base__", "__bases__"}},
		{15, 14, []string{"__base__", "__bases__"}},
		{18, 15, nil},
	} {
		got := pyLabels(e, "app.py", c.line, c.char)
		got = slices.DeleteFunc(got, func(l string) bool { return c.want == nil && l != "__base__" && l != "__bases__" })
		if len(got) > len(c.want) {
			got = got[:len(c.want)]
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("completion at %d:%d = %v, want %v", c.line, c.char, got, c.want)
		}
	}
}
