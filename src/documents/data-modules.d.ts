// Binary files imported as data modules (wrangler.toml [[rules]] "Data"): their bytes.
declare module '*.ttf' {
  const data: ArrayBuffer;
  export default data;
}
declare module '*.icc' {
  const data: ArrayBuffer;
  export default data;
}
