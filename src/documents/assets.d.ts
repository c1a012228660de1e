declare module '*.ttf' {
  const data: ArrayBuffer;
  export default data;
}
declare module '*.icc' {
  const data: ArrayBuffer;
  export default data;
}
