import Foundation
import ObjectGraph
import Testing

@Suite("delete rule deny")
struct DenyTests {
    /// The denials a thrown error lists, or `nil` for another error or none.
    private func denials(_ body: () throws -> Void) -> [DeniedDelete]? {
        do {
            try body()
            return nil
        } catch ObjectGraphError.deleteDenied(let denied) {
            return denied
        } catch {
            return nil
        }
    }

    @Test("deleting an object whose deny relationship still holds objects throws naming both sides, writes nothing, and keeps the context's changes", arguments: StoreFlavor.allCases)
    func denyOneToMany(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: DenyModel.model)
        let view = container.viewContext
        let (vaultID, coinID) = try view.performAndWait {
            let vault = Vault(context: view)
            vault.name = "north"
            let coin = Coin(context: view)
            coin.vault = vault
            try view.save()
            view.delete(vault)
            coin.value = 5  // an unrelated change in the same save, which must not be written either
            let denied = denials { try view.save() }
            #expect(denied == [DeniedDelete(objectID: vault.objectID!, relationship: "coins", relatedIDs: [coin.objectID!])])
            #expect(vault.isDeleted && coin.hasChanges && view.hasChanges)
            return (vault.objectID!, coin.objectID!)
        }
        let reader = container.newBackgroundContext()
        reader.performAndWait {
            let vault = reader.required(vaultID, as: Vault.self)
            #expect(vault.coins.map(\.objectID) == [coinID])
            #expect(reader.required(coinID, as: Coin.self).value == 0)
        }
        // Fixing the cause lets the same save through.
        try view.performAndWait {
            let coin = view.required(coinID, as: Coin.self)
            coin.vault = nil
            try view.save()
            #expect(coin.value == 5)
        }
        try reader.performAndWait { () throws in
            #expect(try reader.fetch(FetchRequest<Vault>()).isEmpty)
            #expect(try reader.fetch(FetchRequest<Coin>()).map(\.value) == [5])
        }
    }

    @Test("a deny relationship emptied in the same save, or whose objects are deleted with it, lets the delete through", arguments: StoreFlavor.allCases)
    func denyEmptied(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: DenyModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let first = Vault(context: view)
            let second = Vault(context: view)
            let moved = Coin(context: view)
            moved.vault = first
            let spent = Coin(context: view)
            spent.vault = second
            let key = VaultKey(context: view)
            first.keys = [key]
            let guardian = Guard(context: view)
            guardian.vaults = [first]
            try view.save()

            moved.vault = second
            first.keys = []
            guardian.vaults = []
            view.delete(first)
            view.delete(spent)
            view.delete(second)
            view.delete(moved)
            try view.save()
            #expect(try view.fetch(FetchRequest<Vault>()).isEmpty)
            #expect(try view.fetch(FetchRequest<Coin>()).isEmpty)
            #expect(try view.fetch(FetchRequest<VaultKey>()).count == 1)
        }
    }

    @Test("deny covers a to-many without inverse, a many-to-many and a to-one", arguments: StoreFlavor.allCases)
    func denyShapes(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: DenyModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let vault = Vault(context: view)
            let key = VaultKey(context: view)
            vault.keys = [key]
            let guardian = Guard(context: view)
            guardian.vaults = [vault]
            let coin = Coin(context: view)
            let certificate = Certificate(context: view)
            coin.certificate = certificate
            try view.save()

            view.delete(vault)
            view.delete(coin)
            let denied = denials { try view.save() }
            #expect(denied == [
                DeniedDelete(objectID: vault.objectID!, relationship: "guards", relatedIDs: [guardian.objectID!]),
                DeniedDelete(objectID: vault.objectID!, relationship: "keys", relatedIDs: [key.objectID!]),
                DeniedDelete(objectID: coin.objectID!, relationship: "certificate", relatedIDs: [certificate.objectID!]),
            ].sorted { ($0.objectID, $0.relationship) < ($1.objectID, $1.relationship) })
            // The other side of a many-to-many can be emptied after the delete.
            guardian.vaults = []
            view.delete(key)
            view.delete(certificate)
            try view.save()
            #expect(try view.fetch(FetchRequest<Vault>()).isEmpty)
            #expect(try view.fetch(FetchRequest<Guard>()).count == 1)
        }
    }

    @Test("a cascade that reaches a deny relationship still holding objects is denied", arguments: StoreFlavor.allCases)
    func cascadeIntoDeny(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: DenyModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let bank = Bank(context: view)
            let vault = Vault(context: view)
            vault.bank = bank
            let coin = Coin(context: view)
            coin.vault = vault
            try view.save()
            view.delete(bank)
            #expect(vault.isDeleted)
            let denied = denials { try view.save() }
            #expect(denied == [DeniedDelete(objectID: vault.objectID!, relationship: "coins", relatedIDs: [coin.objectID!])])
            view.rollback()
            #expect(!bank.isDeleted && !vault.isDeleted && vault.coins == [coin])
        }
    }

    @Test("an object a sibling related after the delete was made is still denied at the save, whatever the merge policy", arguments: StoreFlavor.allCases)
    func denySeesSiblingLinks(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: DenyModel.model)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let vaultID = try view.performAndWait {
            let vault = Vault(context: view)
            try view.save()
            return vault.objectID!
        }
        for policy in [MergePolicy.storeWins, .objectWins] {
            view.performAndWait {
                view.mergePolicy = policy
                view.delete(view.required(vaultID, as: Vault.self))
            }
            // The sibling's save may reach the view before it saves, or not: the store decides.
            let coinID = try background.performAndWait {
                let coin = Coin(context: background)
                coin.vault = background.required(vaultID, as: Vault.self)
                try background.save()
                return coin.objectID!
            }
            let denied = view.performAndWait { denials { try view.save() } }
            #expect(denied?.first?.objectID == vaultID)
            #expect(denied?.first?.relatedIDs.contains(coinID) == true)
            view.performAndWait { view.rollback() }
        }
    }

    @Test("a batch delete respects deny: the whole batch is refused and nothing is deleted", arguments: StoreFlavor.allCases)
    func batchDeleteDenied(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: DenyModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let bank = Bank(context: view)
            let empty = Vault(context: view)
            empty.name = "empty"
            empty.bank = bank
            let full = Vault(context: view)
            full.name = "full"
            full.bank = bank
            let coin = Coin(context: view)
            coin.vault = full
            try view.save()

            let expected = [DeniedDelete(objectID: full.objectID!, relationship: "coins", relatedIDs: [coin.objectID!])]
            let deniedVaults = denials { try view.delete(Vault.self) }
            let deniedBanks = denials { try view.delete(Bank.self) }
            #expect(deniedVaults == expected)
            #expect(deniedBanks == expected)
            #expect(try view.fetch(FetchRequest<Vault>()).count == 2)
            #expect(try view.fetch(FetchRequest<Bank>()).count == 1)
            #expect(!empty.isDeleted && !full.isDeleted)

            // Once the objects it holds go in the same batch, or it holds none, it goes.
            try view.delete(Vault.self, where: #Predicate { $0.name == "empty" })
            #expect(empty.isDeleted)
            try view.delete(Coin.self)
            try view.delete(Bank.self)
            #expect(try view.fetch(FetchRequest<Vault>()).isEmpty)
        }
    }
}
