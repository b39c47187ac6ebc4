package sample

interface Greeter

open class FriendlyGreeter : Greeter

class LoudGreeter : FriendlyGreeter()
