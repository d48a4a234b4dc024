import ObjectGraph

// Every shape a `deny` rule can take: a one-to-many (`Vault.coins`), a to-many without inverse
// (`Vault.keys`), a many-to-many (`Vault.guards`), a to-one without inverse (`Coin.certificate`),
// and a cascade that reaches a `deny` (`Bank.vaults`).

final class Bank: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "bank", deleteRule: .cascade) var vaults: Set<Vault>
}

final class Vault: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "vaults") var bank: Bank?
    @Relationship(inverse: "vault", deleteRule: .deny) var coins: Set<Coin>
    @Relationship(deleteRule: .deny) var keys: Set<VaultKey>
    @Relationship(inverse: "vaults", deleteRule: .deny) var guards: Set<Guard>
}

final class Coin: ManagedObject {
    @Attribute var value: Int = 0
    @Relationship(inverse: "coins") var vault: Vault?
    @Relationship(deleteRule: .deny) var certificate: Certificate?
}

final class VaultKey: ManagedObject {
    @Attribute var label: String = ""
}

final class Guard: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: "guards") var vaults: Set<Vault>
}

final class Certificate: ManagedObject {
    @Attribute var serial: String = ""
}

enum DenyModel {
    static let model: ObjectModel = try! ObjectModel(entities: [Bank.self, Vault.self, Coin.self, VaultKey.self, Guard.self, Certificate.self])
}
