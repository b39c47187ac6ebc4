package sample

/** A shop that greets its customers and counts what it sells. */
class Shop(val name: String) : FriendlyGreeter() {
    private val items = mutableListOf<String>()

    fun add(item: String): Shop {
        items.add(item)
        return this
    }

    fun count(): Int = items.size

    fun describe(): String = greet(name) + " with " + count() + " items"
}

fun openShop(): String {
    val shop = Shop("corner")
    shop.add("tea").add("bread")
    return shop.describe()
}
