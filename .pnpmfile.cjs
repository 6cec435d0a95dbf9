// @prisma/client lists the prisma CLI (and typescript) as optional peers. The workspace has
// both as dev dependencies, so pnpm binds them to the client and `pnpm deploy --prod` would
// carry the whole CLI into the ledger and video images; the generated client needs neither.
module.exports = {
  hooks: {
    readPackage(manifest) {
      if (manifest.name === "@prisma/client") {
        delete manifest.peerDependencies?.prisma;
        delete manifest.peerDependencies?.typescript;
        delete manifest.peerDependenciesMeta?.prisma;
        delete manifest.peerDependenciesMeta?.typescript;
      }
      return manifest;
    },
  },
};
