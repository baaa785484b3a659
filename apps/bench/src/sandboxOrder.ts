/** A valid sandbox create, what integrators send most: the body of every create benchmark. */
export const sandboxOrder = {
  courier: "sandbox",
  order: {
    reference: "bench-1",
    recipient: {
      fullName: "Amina Benali",
      phone: "+213 555 12 34 56",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 5 juillet, bât. 3"
    },
    deliveryType: "home",
    productList: "1x robe kabyle",
    codAmount: 4500
  }
}
